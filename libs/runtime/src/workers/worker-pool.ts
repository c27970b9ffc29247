import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { QueueIndex } from '../queue/queue-index';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import type { ExecutionOptions } from './runtime-options';
import { EXECUTION_OPTIONS } from './runtime-options';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { newSegmentOwner } from '../segment/segment-identity';
import { SegmentRunner } from '../segment/segment-runner';

/**
 * This process's queue workers: `concurrency` loops, each claiming a due
 * queued run and executing one segment of it. Several processes may run
 * workers on one store: the claim is decided on the run's stream with its
 * expected revision, so exactly one claimant wins.
 */
@Injectable()
export class WorkerPool implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerPool.name);
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  /** Runs a loop of this process is claiming or executing: the others skip them. */
  private readonly busy = new Set<string>();
  private loops: Promise<void>[] = [];
  private running = false;

  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly segments: SegmentRunner,
    private readonly index: QueueIndex,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
    @Inject(EXECUTION_OPTIONS) options: ExecutionOptions,
  ) {
    this.concurrency = options.workers?.concurrency ?? 4;
    this.pollIntervalMs = options.workers?.pollIntervalMs ?? 250;
  }

  onApplicationBootstrap(): void {
    this.index.start();
    if (this.concurrency > 0) this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts the loops (done at bootstrap when `concurrency` > 0). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.index.start();
    this.loops = Array.from({ length: Math.max(1, this.concurrency) }, () => this.loop());
  }

  /** Stops taking runs and waits for the segments in progress to end. */
  async stop(): Promise<void> {
    this.running = false;
    this.index.changes.notify();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** Runs this process is executing now. */
  get inProgress(): number {
    return this.busy.size;
  }

  /**
   * Claims one due run and executes a segment of it, here and now (for
   * tools and tests that drive the queue by hand).
   *
   * @returns the run id, or null when no run is due or another claimant won it.
   */
  async runOnce(): Promise<string | null> {
    const runId = this.index.dueQueued(this.clock.now()).find((id) => !this.busy.has(id));
    if (runId === undefined) return null;
    this.busy.add(runId);
    try {
      return (await this.claimAndRun(runId)) ? runId : null;
    } finally {
      this.busy.delete(runId);
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const runId = this.index.dueQueued(this.clock.now()).find((id) => !this.busy.has(id));
      if (runId === undefined) {
        await this.index.changes.wait(this.pollIntervalMs);
        continue;
      }
      this.busy.add(runId);
      let executed = false;
      try {
        executed = await this.claimAndRun(runId);
      } catch (error) {
        this.logger.error(`Worker failed on run ${runId}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.busy.delete(runId);
      }
      if (!executed) {
        // The index was stale (another claimant won, or the run is not due): wait for it to change
        // rather than spin on the same refused claim.
        await this.index.changes.wait(this.pollIntervalMs);
      } else {
        // Yield to I/O between segments, so a busy worker never starves the subscriptions feeding the index.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** @returns whether this process won the claim and executed a segment. */
  private async claimAndRun(runId: string): Promise<boolean> {
    const owner = newSegmentOwner('worker');
    const claim = await this.processor.process({ type: 'ClaimRun', data: { runId, owner }, metadata: { now: this.clock.now() } });
    if (claim.decision.kind !== 'accepted') {
      // Another claimant won, or the run is not due yet: the index catches up.
      this.metrics.increment('claimsLost');
      return false;
    }
    await this.segments.run(claim, { owner, attempt: claim.state.attempt });
    return true;
  }
}
