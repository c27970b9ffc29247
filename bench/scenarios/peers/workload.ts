/**
 * The workflow shape every subject of the peers scenario runs, and what a
 * subject's round reports: runs of K no-op durable steps, C of them in flight
 * until a fixed total is done, timed from the first start to the last end.
 */
import { Latencies } from '../../support/stats';

/** K: the no-op durable steps of one run (workflow). */
export const STEPS_PER_RUN = 10;

/** What one round of a subject does. */
export interface PeerWorkload {
  /** C: runs in flight at once. */
  readonly runs: number;
  /** Runs in the timed part of the round (a multiple of `runs`). */
  readonly totalRuns: number;
  /** K. */
  readonly stepsPerRun: number;
  /** Runs done before the timed part, C at a time (a peer's process is fresh each round: its code is compiled by then). */
  readonly warmupRuns: number;
}

/** What one round of a subject measured. */
export interface SubjectRoundResult {
  readonly stepsPerSecond: number;
  /** Step latency: from a run's start to its first step's durable end, then from one step's to the next's (what a run waits per step). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Tool steps of the timed part. */
  readonly toolSteps: number;
}

/**
 * Keeps `runs` runs in flight until `totalRuns` have ended: each of `runs`
 * loops takes the next run index as soon as its run ends.
 * @returns the seconds from the first start to the last end.
 */
export async function closedLoop(runs: number, totalRuns: number, run: (index: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(runs, totalRuns) }, async () => {
      for (let index = next++; index < totalRuns; index = next++) await run(index);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Step latencies as a workflow body sees them: `start()` when the body begins,
 * `step()` after each step's durable end. Off during the warm-up.
 */
export class StepClock {
  readonly latencies = new Latencies();
  private on = false;

  /** Counts from now on (after the warm-up). */
  measure(): void {
    this.on = true;
  }

  /** The body of a run begins: the time its first step is measured from. */
  start(): { step(): void } {
    let last = performance.now();
    return {
      step: () => {
        const now = performance.now();
        if (this.on) this.latencies.add(now - last);
        last = now;
      },
    };
  }
}

/** A round's figures from its seconds and latencies. */
export function roundResult(workload: PeerWorkload, seconds: number, latencies: Latencies): SubjectRoundResult {
  const toolSteps = workload.totalRuns * workload.stepsPerRun;
  if (latencies.count !== toolSteps) throw new Error(`${latencies.count} step latencies recorded, ${toolSteps} expected (a run replayed or lost a step)`);
  return { stepsPerSecond: toolSteps / seconds, p50Ms: latencies.percentile(50), p99Ms: latencies.percentile(99), toolSteps };
}
