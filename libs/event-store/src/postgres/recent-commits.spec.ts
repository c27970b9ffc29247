import type { StoredEventRow } from '../core/stored-event-row';
import { RecentCommits } from './recent-commits';

const rowsAt = (from: number, count: number): StoredEventRow[] =>
  Array.from({ length: count }, (_, i) => ({
    position: from + i,
    stream_name: 's',
    revision: i,
    event_id: `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
    event_type: 'T',
    data: '{}',
    metadata: '{}',
    created_at: 0,
  }));
const positions = (rows: StoredEventRow[] | undefined): number[] | undefined => rows?.map((r) => r.position);

describe('RecentCommits', () => {
  it('answers nothing until a batch of the store has committed (a new store is in doubt)', () => {
    const recent = new RecentCommits();
    expect(recent.page(0, 10)).toBeUndefined();
    recent.committed(recent.begin(), 0, rowsAt(1, 3));
    expect(positions(recent.page(0, 10))).toEqual([1, 2, 3]);
    expect(positions(recent.page(1, 1))).toEqual([2]);
    expect(positions(recent.page(3, 10))).toEqual([]); // at the end: an empty page, the subscription waits
  });

  it('extends its run with a batch at its end; starts a new run when another store wrote between', () => {
    const recent = new RecentCommits();
    recent.committed(recent.begin(), 0, rowsAt(1, 2));
    recent.committed(recent.begin(), 2, rowsAt(3, 2));
    expect(positions(recent.page(0, 10))).toEqual([1, 2, 3, 4]);
    recent.committed(recent.begin(), 6, rowsAt(7, 1)); // 5 and 6 are another store's
    expect(recent.page(0, 10)).toBeUndefined();
    expect(recent.page(4, 10)).toBeUndefined(); // 5 is not held: read from the server
    expect(positions(recent.page(6, 10))).toEqual([7]);
    expect(recent.page(8, 10)).toBeUndefined(); // past what it knows
  });

  it('sends pages to the server once a notification names a head past its run, until a later batch of its own', () => {
    const recent = new RecentCommits();
    recent.committed(recent.begin(), 0, rowsAt(1, 2));
    recent.heard(1); // an old notification: nothing new
    expect(positions(recent.page(2, 10))).toEqual([]);
    recent.heard(4);
    expect(recent.page(2, 10)).toBeUndefined();
    expect(recent.page(0, 10)).toBeUndefined();
    recent.committed(recent.begin(), 4, rowsAt(5, 1));
    expect(positions(recent.page(4, 10))).toEqual([5]);
  });

  it('a doubting wake-up sends pages to the server; only a batch begun after it clears it', () => {
    const recent = new RecentCommits();
    recent.committed(recent.begin(), 0, rowsAt(1, 2));
    const begunBefore = recent.begin();
    recent.doubt();
    expect(recent.page(0, 10)).toBeUndefined();
    recent.committed(begunBefore, 2, rowsAt(3, 1)); // locked the head perhaps before the commits the doubt is about
    expect(recent.page(2, 10)).toBeUndefined();
    recent.committed(recent.begin(), 3, rowsAt(4, 1));
    expect(positions(recent.page(2, 10))).toEqual([3, 4]);
  });

  it('keeps the last 8 MiB of data and metadata', () => {
    const recent = new RecentCommits();
    const big = rowsAt(1, 10).map((r) => ({ ...r, data: 'x'.repeat(1024 * 1024) }));
    recent.committed(recent.begin(), 0, big);
    expect(recent.page(1, 10)).toBeUndefined();
    expect(positions(recent.page(3, 10))).toEqual([4, 5, 6, 7, 8, 9, 10]);
  });

  it('keeps the last 4,096 rows', () => {
    const recent = new RecentCommits();
    recent.committed(recent.begin(), 0, rowsAt(1, 5_000));
    expect(recent.page(0, 10)).toBeUndefined();
    expect(recent.page(903, 10)).toBeUndefined();
    expect(positions(recent.page(904, 2))).toEqual([905, 906]);
  });
});
