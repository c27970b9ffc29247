import { pullBatches } from './pull-batches';

/** An async source that yields `ready` items at once, then waits for `release` before the rest. */
function source(ready: number, later: number) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let pulled = 0;
  async function* items(): AsyncGenerator<number> {
    for (let i = 0; i < ready; i++) {
      pulled++;
      yield i;
    }
    await gate;
    for (let i = ready; i < ready + later; i++) {
      pulled++;
      yield i;
    }
  }
  return { items: items(), release, pulled: () => pulled };
}

describe('pullBatches', () => {
  it('fills batches up to the maximum while items are available, then yields the rest as soon as the source waits', async () => {
    const s = source(7, 2);
    const batches = pullBatches(s.items, 3);
    expect((await batches.next()).value).toEqual([0, 1, 2]);
    expect((await batches.next()).value).toEqual([3, 4, 5]);
    expect((await batches.next()).value).toEqual([6]); // the source waits: no holding back
    s.release();
    expect((await batches.next()).value).toEqual([7, 8]);
    expect((await batches.next()).done).toBe(true);
  });

  it('does not read ahead while the consumer holds a batch (back-pressure)', async () => {
    const s = source(100, 0);
    const batches = pullBatches(s.items, 10);
    await batches.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.pulled()).toBeLessThanOrEqual(11);
    await batches.return(undefined);
  });

  it('with a linger, a batch that is not full waits for items that come within it, and no longer', async () => {
    const s = source(2, 2);
    const batches = pullBatches(s.items, 10, 1000);
    const first = batches.next();
    // The source waits after two items; they come within the linger: one batch of four.
    await new Promise((resolve) => setTimeout(resolve, 20));
    s.release();
    expect((await first).value).toEqual([0, 1, 2, 3]);

    const quiet = source(1, 1);
    const lingering = pullBatches(quiet.items, 10, 30);
    const started = Date.now();
    expect((await lingering.next()).value).toEqual([0]); // nothing more came: yielded once the linger ended
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    quiet.release();
    expect((await lingering.next()).value).toEqual([1]);
  });
});
