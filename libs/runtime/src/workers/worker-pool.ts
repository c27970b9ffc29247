import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { RunNotClaimableError } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { hasConsumerGroups } from '@agent-ledger/event-store';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { QueueIndex } from '../queue/queue-index';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { RUN_EVENT_STORE } from '../persistence/event-store.tokens';
import { ConsumerGroupFeed, resolveConsumerGroupOptions } from './consumer-group-feed';
import type { RunOffer } from './run-offers';
import { RunOffers } from './run-offers';
import type { ExecutionOptions } from './runtime-options';
import { EXECUTION_OPTIONS } from './runtime-options';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { newSegmentOwner } from '../segment/segment-identity';
import { SegmentRunner } from '../segment/segment-runner';

/**
 * This process's queue workers: `concurrency` loops, each claiming a queued
 * run and executing one segment of it. Several processes may run workers on
 * one store: the claim is decided on the run's stream with its expected
 * revision, so exactly one claimant wins.
 *
 * Where the runs come from: on a store that serves consumer groups
 * (EventStoreDB), the group offers each runnable run to one process
 * ({@link ConsumerGroupFeed}), and a run's own queue index only serves as the
 * fallback for runs that waited past `sweepAfterMs`; on the embedded store,
 * every process's loops take the due runs of their queue index.
 */
@Injectable()
export class WorkerPool implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerPool.name);
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  /** Runs a loop of this process is claiming or executing: the others skip them. */
  private readonly busy = new Set<string>();
  private loops: Promise<void>[] = [];
  private running = false;
  /** The runs offered to this process, when a consumer group hands them out. */
  private readonly offers: RunOffers | null = null;
  private readonly feed: ConsumerGroupFeed | null = null;

  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly segments: SegmentRunner,
    private readonly index: QueueIndex,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
    @Inject(EXECUTION_OPTIONS) options: ExecutionOptions,
    @Inject(RUN_EVENT_STORE) store: EventStore,
  ) {
    this.concurrency = options.workers?.concurrency ?? 4;
    this.pollIntervalMs = options.workers?.pollIntervalMs ?? 250;
    const group = options.workers?.consumerGroup;
    if (group !== false && hasConsumerGroups(store)) {
      this.offers = new RunOffers(index.changes);
      this.feed = new ConsumerGroupFeed(store, resolveConsumerGroupOptions(group), this.offers, Math.max(1, this.concurrency), metrics);
    }
  }

  /**
   * On a store with consumer groups, creates the workers' group or checks its
   * settings (in every process, with workers or not, so that runs requested
   * before the first worker started are offered), before any part of the
   * application starts: a refused start leaves nothing running.
   * @throws ConsumerGroupMismatchError when the group exists with other settings
   */
  async onModuleInit(): Promise<void> {
    await this.feed?.ensure();
  }

  /** Starts the queue index, and the loops when `concurrency` > 0. */
  onApplicationBootstrap(): void {
    this.index.start();
    if (this.concurrency > 0) this.start();
  }

  /** The consumer group's name when one hands out the runs here, else null (the queue index does). */
  get consumerGroup(): string | null {
    return this.feed?.options.name ?? null;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts the loops (done at bootstrap when `concurrency` > 0). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.index.start();
    this.feed?.start();
    this.loops = Array.from({ length: Math.max(1, this.concurrency) }, () => this.loop());
  }

  /** Stops taking runs (leaving the consumer group: its offers go to other processes) and waits for the segments in progress to end. */
  async stop(): Promise<void> {
    this.running = false;
    await this.feed?.stop();
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
   * tools and tests that drive the queue by hand): a run offered to this
   * process, else any due run of the queue index, consumer group or not.
   *
   * @returns the run id, or null when no run is due or another claimant won it.
   */
  async runOnce(): Promise<string | null> {
    const now = this.clock.now();
    const offer = this.offers?.take((id) => !this.busy.has(id), now) ?? this.dueRun(now, now);
    if (offer === undefined) return null;
    this.busy.add(offer.runId);
    try {
      return (await this.claimAndRun(offer)) ? offer.runId : null;
    } finally {
      this.busy.delete(offer.runId);
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const offer = this.nextOffer();
      if (offer === undefined) {
        await this.index.changes.wait(this.pollIntervalMs);
        continue;
      }
      const { runId } = offer;
      this.busy.add(runId);
      let executed = false;
      try {
        executed = await this.claimAndRun(offer);
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

  /** The next run for a loop: an offer made to this process, else a run of the queue index (see {@link dueRun}). */
  private nextOffer(): RunOffer | undefined {
    const now = this.clock.now();
    return this.offers?.take((id) => !this.busy.has(id), now) ?? this.dueRun(now, this.feed === null ? now : now - this.feed.options.sweepAfterMs);
  }

  /**
   * A run of the queue index due at `horizon` that no loop here holds. The
   * loops look at `now` without a consumer group; with one, at `now -
   * sweepAfterMs` (the group offers the other runs to one process), and such
   * a claim counts `claimsSwept`. {@link runOnce} looks at `now`.
   */
  private dueRun(now: number, horizon: number): RunOffer | undefined {
    // At most busy.size of the oldest due runs are held here: one more is enough to find a free one, without listing the whole queue.
    const runId = this.index.dueQueued(horizon, 'queued', this.busy.size + 1).find((id) => !this.busy.has(id));
    if (runId === undefined) return undefined;
    if (this.feed !== null && horizon < now) this.metrics.increment('claimsSwept');
    return { runId };
  }

  /**
   * Claims the offered run and executes a segment of it. The offer is
   * acknowledged once the claim is decided, won or refused: from then on the
   * run's lease (won) or its stream (refused) says what happens next; a run
   * refused because its back-off has not ended is offered to this process's
   * workers again when it ends. A store failure asks the group to offer it
   * again.
   * @returns whether this process won the claim and executed a segment.
   */
  private async claimAndRun(offer: RunOffer): Promise<boolean> {
    const { runId } = offer;
    const owner = newSegmentOwner('worker');
    const now = this.clock.now();
    let claim;
    try {
      claim = await this.processor.process({ type: 'ClaimRun', data: { runId, owner }, metadata: { now } });
    } catch (error) {
      await offer.settle?.('retry');
      throw error;
    }
    if (claim.decision.kind !== 'accepted') {
      // Another claimant won, or the run is not due yet: the index catches up.
      this.metrics.increment('claimsLost');
      const refusal = claim.decision.kind === 'rejected' ? claim.decision.error : null;
      if (this.offers !== null && refusal instanceof RunNotClaimableError && refusal.why === 'notDue' && refusal.notBefore !== null) {
        this.offers.schedule(runId, refusal.notBefore);
      }
      await offer.settle?.('ack');
      return false;
    }
    this.offers?.cancel(runId);
    await offer.settle?.('ack');
    await this.segments.run(claim, { owner, attempt: claim.state.attempt });
    return true;
  }
}
