import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { RunDecision } from '@agent-ledger/domain';
import { resolveRunPolicy } from '@agent-ledger/domain';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { QueueIndex } from '../queue/queue-index';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import type { ExecutionOptions } from './runtime-options';
import { EXECUTION_OPTIONS } from './runtime-options';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { newSegmentOwner } from '../segment/segment-identity';

/** What one pass of the reaper did, run by run. */
export interface ReapReport {
  readonly requeued: string[];
  readonly failed: string[];
  readonly cancelled: string[];
  /** Runs whose lease turned out to be renewed (or that settled) before the reaper decided. */
  readonly spared: string[];
}

/**
 * Takes back runs whose lease expired: requeues them, or dead-letters them
 * when the budget is spent or a `NON_IDEMPOTENT_WRITE` was in flight. It also
 * fails an interactive run its caller never claimed within a lease
 * (`INTERACTIVE_CALLER_LOST`). Each
 * reap is decided on the run's stream as it is at that moment, and appended
 * with that revision: a renewal landing first wins.
 */
@Injectable()
export class Reaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(Reaper.name);
  private readonly intervalMs: number;
  /** How long an interactive run's caller has to claim it. */
  private readonly leaseMs: number;
  private readonly name = newSegmentOwner('worker').replace(/^worker:/, 'reaper:');
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<ReapReport> | null = null;

  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly index: QueueIndex,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
    @Inject(EXECUTION_OPTIONS) options: ExecutionOptions,
  ) {
    this.intervalMs = options.reaper?.intervalMs ?? 30_000;
    this.leaseMs = resolveRunPolicy(options.policy ?? {}).leaseSeconds * 1000;
  }

  onApplicationBootstrap(): void {
    this.index.start();
    if (this.intervalMs > 0) {
      this.timer = setInterval(() => void this.reapOnce().catch((e: unknown) => this.logger.error(`Reaper pass failed: ${String(e)}`)), this.intervalMs);
      this.timer.unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.pass?.catch(() => undefined);
  }

  /** One pass over the runs whose lease the index saw expire. Passes never overlap. */
  reapOnce(): Promise<ReapReport> {
    this.pass ??= this.reap().finally(() => {
      this.pass = null;
    });
    return this.pass;
  }

  private async reap(): Promise<ReapReport> {
    this.metrics.increment('reaperRuns');
    const report: ReapReport = { requeued: [], failed: [], cancelled: [], spared: [] };
    const now = this.clock.now();
    const candidates = [...this.index.expiredLeases(now), ...this.index.unclaimedInteractive(now, this.leaseMs)];
    for (const runId of candidates) {
      const outcome = await this.processor.process({ type: 'ReapRun', data: { runId, reaper: this.name }, metadata: { now: this.clock.now() } });
      const kind = classify(outcome.decision);
      report[kind].push(runId);
      if (kind !== 'spared') {
        this.metrics.incrementLabelled('reaperActions', { action: kind });
        this.logger.log(`Reaped run ${runId}: ${kind}`);
      }
    }
    if (report.requeued.length > 0) this.index.changes.notify();
    return report;
  }
}

function classify(decision: RunDecision): keyof ReapReport {
  if (decision.kind !== 'accepted') return 'spared';
  const type = decision.events.at(-1)?.type;
  if (type === 'RunRequeued') return 'requeued';
  if (type === 'RunCancelled') return 'cancelled';
  if (type === 'RunFailed') return 'failed';
  return 'spared';
}
