import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { ProjectionQueries } from '../queries/projection-queries';
import { ProjectionRebuilder } from '../rebuild/projection-rebuilder';
import type { RebuildProgress } from '../rebuild/rebuild-progress';
import { ProjectionStore } from '../store/projection-store';
import { appendSyntheticHistory, syntheticRun } from '../testing/synthetic-history';
import { ProjectionRunner } from './projection-runner';
import { scaled } from '../../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

/**
 * 20k by default to keep the suite quick; `PROJECTION_BENCH_EVENTS=200000` for
 * the figures in docs/projections.md. Memory is printed, not asserted: RSS on a
 * shared CI machine depends on the GC and on the other test workers, so memory
 * targets belong in the benchmarks. What is asserted is the structure that
 * keeps memory bounded: the history is read in batches of a fixed size.
 */
const EVENTS = Number(process.env.PROJECTION_BENCH_EVENTS ?? 20_000);
const MB = 1024 * 1024;

/** Resident memory sampled while `work` runs, with how far the work was at each sample. */
async function sampled<T>(progress: () => number, work: () => Promise<T>): Promise<{ value: T; ms: number; samples: Array<{ done: number; rss: number }> }> {
  const samples = [{ done: 0, rss: process.memoryUsage().rss }];
  const timer = setInterval(() => samples.push({ done: progress(), rss: process.memoryUsage().rss }), 5);
  const began = Date.now();
  try {
    const value = await work();
    samples.push({ done: Number.MAX_SAFE_INTEGER, rss: process.memoryUsage().rss });
    return { value, ms: Date.now() - began, samples };
  } finally {
    clearInterval(timer);
  }
}

/** Peak RSS growth over the start in the first and in the second half of the work. */
function halves(samples: ReadonlyArray<{ done: number; rss: number }>, total: number) {
  const start = samples[0]?.rss ?? 0;
  const peak = (pick: (s: { done: number }) => boolean) => (Math.max(start, ...samples.filter(pick).map((s) => s.rss)) - start) / MB;
  return { firstHalfMb: peak((s) => s.done <= total / 2), secondHalfMb: peak((s) => s.done > total / 2), samples: samples.length };
}

function fingerprint(store: ProjectionStore): string {
  return createHash('sha256').update(JSON.stringify(store.dumpTables())).digest('hex');
}

describe(`a long history (${EVENTS} synthetic events)`, () => {
  let dir: string;
  let events: SqliteEventStore;
  let runs = 0;
  let total = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-projection-long-'));
    events = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    runs = Math.ceil(EVENTS / 15); // about 15 events per run (run and audit streams)
    total = await appendSyntheticHistory(events, events, 0, runs);
  });

  afterAll(async () => {
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is projected, then rebuilt, a bounded batch at a time, into the same rows', async () => {
    const store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
    const source = { name: 'runs', store: events };
    try {
      const runner = new ProjectionRunner(store, source, { batchSize: 256 });
      const projected = await sampled(() => runner.stats().eventsRead, () => runner.catchUp());
      expect(runner.stats()).toMatchObject({ eventsRead: total, largestBatch: 256 });
      expect(runner.stats().batches).toBeGreaterThanOrEqual(Math.ceil(total / 256));
      const live = fingerprint(store);
      const failedClosed = Array.from({ length: runs }, (_, i) => syntheticRun(i)).filter((r) => r.run.some((e) => e.type === 'RunFailed')).length;
      expect(new ProjectionQueries(store).auditReview({ limit: 1 }).totals).toMatchObject({ runsFailedClosed: failedClosed, writesWithoutAudit: failedClosed });

      let rebuiltSoFar = 0;
      const progress: RebuildProgress[] = [];
      const rebuilt = await sampled(
        () => rebuiltSoFar,
        () =>
          new ProjectionRebuilder(store, [source]).rebuild({
            batchSize: 1000,
            onProgress: (p) => {
              rebuiltSoFar = p.eventsDone;
              progress.push(p);
            },
          }),
      );
      expect(rebuilt.value.eventsDone).toBe(total);
      expect(fingerprint(store)).toBe(live);
      const midway = progress.filter((p) => p.phase === 'replaying');
      expect(midway.length).toBeGreaterThan(0);
      expect(midway.every((p) => p.etaMs !== null && p.eventsTotalEstimate !== null && Math.abs(p.eventsTotalEstimate - total) / total < 0.05)).toBe(true);

      // A row index smaller than the rows: the rebuild indexes its keys midway and finds rows by key from there on.
      const small = await new ProjectionRebuilder(store, [source]).rebuild({ batchSize: 1000, rowIndexCapacity: 500 });
      expect(small.eventsDone).toBe(total);
      expect(fingerprint(store)).toBe(live);
      // The swapped-in tables take live batches (new rows and changed ones: their keys are indexed, as an upsert needs),
      // and end as a projection from scratch does.
      await appendSyntheticHistory(events, events, runs, 20);
      await runner.catchUp();
      const fresh = ProjectionStore.open({ path: join(dir, 'fresh.sqlite') });
      try {
        await new ProjectionRunner(fresh, source, { batchSize: 256 }).catchUp();
        expect(fingerprint(store)).toBe(fingerprint(fresh));
        expect(fingerprint(store)).not.toBe(live);
      } finally {
        fresh.close();
      }

      const memory = { project: halves(projected.samples, total), rebuild: halves(rebuilt.samples, total) };
      process.stdout.write(
        `projection figures: ${JSON.stringify({ events: total, projectEventsPerSecond: Math.round((total * 1000) / projected.ms), rebuildEventsPerSecond: Math.round(rebuilt.value.eventsPerSecond), memory })}\n`,
      );
      // The timers ran during the work: the runner yields to the event loop between batches.
      expect(memory.project.samples).toBeGreaterThan(3);
    } finally {
      store.close();
    }
  });
});
