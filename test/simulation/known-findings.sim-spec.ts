import type { Schedule } from './sim-model';
import { LEASE_MS } from './sim-model';
import { runSchedule } from './sim-runner';
import { scaled } from '../support/time-scale';

/*
 * What the simulation found, each as the minimal schedule fast-check shrank
 * it to, kept as a regression test of its fix. stale-fence-write is fixed:
 * a segment checks its lease on the clock after a write's fence, right before
 * the call (segment-runner.ts), and stops if it may have lost the run.
 */

/**
 * stale-fence-write. The writer's segment pauses at its 6th pause point:
 * the put's fence (StepStarted, the in-flight record) is stored, the tool is
 * not called yet. The process stalls past its lease; the reaper requeues the
 * run (an IDEMPOTENT_WRITE in flight). Then the stalled segment wakes up and
 * calls the put, while the run waits in the queue for another worker (which
 * then executes it again, with the same key): the segment never checks that
 * it still holds its lease between its fence and the call (docs/guarantees.md,
 * guarantee 2: a segment that lost its lease records and executes nothing).
 * Found with seed -823294990, path 37:3:2:3:2:3:5:6:6.
 */
const staleIdempotentWrite: Schedule = {
  initial: ['writer', 'reader'],
  actions: [{ kind: 'step', slot: 0, pauseAfter: 5 }],
  settle: { paused: 'expireThenResume', approvals: [true] },
};

/**
 * The same with the NON_IDEMPOTENT_WRITE: the writer pauses after the
 * append's fence (its 12th pause point), the reaper fails the run
 * WRITE_INTERRUPTED (never retried: right), and the stalled segment then
 * executes the append, after its run was settled. It runs once, but after
 * the record says it was interrupted: an operator who checks the target,
 * finds nothing and requeues with `notExecuted` gets it executed twice.
 */
const staleNonIdempotentWrite: Schedule = {
  initial: ['writer'],
  actions: [
    { kind: 'step', slot: 0, pauseAfter: 11 },
    { kind: 'advance', ms: LEASE_MS + 1000 },
    { kind: 'reap', slot: 1 },
    { kind: 'resume', pick: 0, pauseAfter: null },
  ],
  settle: { paused: 'resume', approvals: [true] },
};

describe('known findings of the simulation', () => {
  it('stale-fence-write: a segment that lost its lease never executes the write it fenced (IDEMPOTENT_WRITE)', async () => {
    const outcome = await runSchedule(staleIdempotentWrite);
    expect(outcome.violations).toEqual([]);
  }, scaled(60_000));

  it('stale-fence-write: a segment that lost its lease never executes the write it fenced (NON_IDEMPOTENT_WRITE)', async () => {
    const outcome = await runSchedule(staleNonIdempotentWrite);
    expect(outcome.violations).toEqual([]);
  }, scaled(60_000));
});
