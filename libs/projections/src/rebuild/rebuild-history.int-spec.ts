import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidProjectionOptionError } from '../errors/invalid-projection-option.error';
import { ProjectionStore } from '../store/projection-store';
import type { RebuildRecord } from './rebuild-record';
import { REBUILD_RECORDS_KEPT } from './rebuild-record';

describe("the read models' file records each rebuild swapped in", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agent-ledger-rebuild-history-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const record = (n: number): RebuildRecord => ({ projections: ['steps'], requestedBy: n % 2 === 0 ? `cli:me@host` : null, startedAt: n, finishedAt: n + 1, eventsDone: n, eventsApplied: 2 * n, elapsedMs: 1 });

  it('newest first, across openings of the file (another process reads what one wrote), keeping the last REBUILD_RECORDS_KEPT', () => {
    const path = join(dir, 'read-models.sqlite');
    const writer = ProjectionStore.open({ path });
    expect(writer.rebuildHistory()).toEqual([]);
    for (let n = 1; n <= REBUILD_RECORDS_KEPT + 5; n++) writer.swap([], record(n));
    writer.close();
    const reader = ProjectionStore.open({ path });
    try {
      expect(reader.rebuildHistory(2)).toEqual([record(REBUILD_RECORDS_KEPT + 5), record(REBUILD_RECORDS_KEPT + 4)]);
      const all = reader.rebuildHistory(1000);
      expect(all).toHaveLength(REBUILD_RECORDS_KEPT);
      expect(all.at(-1)).toEqual(record(6));
      expect(reader.rebuildHistory()).toHaveLength(10);
      expect(() => reader.rebuildHistory(0)).toThrow(InvalidProjectionOptionError);
    } finally {
      reader.close();
    }
  });

  it('a swap without a record records nothing', () => {
    const store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
    try {
      store.swap([]);
      expect(store.rebuildHistory()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
