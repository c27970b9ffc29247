import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type { RunMode } from '@agent-ledger/domain';
import { StreamCategory } from '@agent-ledger/domain';
import type { EventStore, EventSubscription, RecordedEvent } from '@agent-ledger/event-store';
import { categoryFilter } from '@agent-ledger/event-store';
import { ChangeSignal } from './change-signal';
import { RUN_EVENT_STORE } from './event-store.tokens';

/** What the queue needs to know of a run. */
interface IndexedRun {
  readonly runId: string;
  mode: RunMode;
  status: 'QUEUED' | 'RUNNING';
  notBefore: number;
  leaseExpiresAt: number | null;
}

/**
 * An in-memory index of queued and running runs, fed by a catch-up
 * subscription to the runs' events (so it also sees other processes'
 * appends). It only proposes: the claim and the reap are decided on the run's
 * stream, so a stale index costs a refused command, never a wrong write.
 */
@Injectable()
export class QueueIndex implements OnModuleDestroy {
  private readonly logger = new Logger(QueueIndex.name);
  private readonly runs = new Map<string, IndexedRun>();
  private subscription: EventSubscription | null = null;
  private consuming: Promise<void> | null = null;
  /** Notified whenever a run becomes claimable or changes. */
  readonly changes = new ChangeSignal();

  constructor(@Inject(RUN_EVENT_STORE) private readonly store: EventStore) {}

  /** Starts following the runs' events from the beginning of the store. Idempotent. */
  start(): void {
    if (this.subscription !== null) return;
    const subscription = this.store.subscribeToAll({ filter: categoryFilter(StreamCategory.RUN) });
    this.subscription = subscription;
    this.consuming = (async () => {
      try {
        for await (const event of subscription) this.apply(event);
      } catch (error) {
        this.logger.error(`The queue index stopped following the store: ${error instanceof Error ? error.message : String(error)}`);
      }
    })();
  }

  /** Queued runs due at `now`, oldest due first. */
  dueQueued(now: number, mode: RunMode = 'queued'): string[] {
    return [...this.runs.values()]
      .filter((run) => run.status === 'QUEUED' && run.mode === mode && run.notBefore <= now)
      .sort((a, b) => a.notBefore - b.notBefore)
      .map((run) => run.runId);
  }

  /** Running runs whose lease expired before `now`. */
  expiredLeases(now: number): string[] {
    return [...this.runs.values()]
      .filter((run) => run.status === 'RUNNING' && run.leaseExpiresAt !== null && run.leaseExpiresAt <= now)
      .map((run) => run.runId);
  }

  /** How many unsettled runs the index knows in each state (for diagnostics). */
  counts(): { queued: number; running: number } {
    let queued = 0;
    for (const run of this.runs.values()) if (run.status === 'QUEUED') queued++;
    return { queued, running: this.runs.size - queued };
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
    await this.consuming;
    this.subscription = null;
  }

  private apply(event: RecordedEvent): void {
    const data = event.data as Record<string, unknown>;
    const runId = typeof data.runId === 'string' ? data.runId : null;
    if (runId === null) return;
    const run = this.runs.get(runId);
    switch (event.type) {
      case 'RunRequested':
        this.runs.set(runId, { runId, mode: data.mode as RunMode, status: 'QUEUED', notBefore: Number(data.requestedAt), leaseExpiresAt: null });
        this.changes.notify();
        return;
      case 'RunRequeued':
        if (run === undefined) return;
        run.status = 'QUEUED';
        run.notBefore = Number(data.notBefore);
        run.leaseExpiresAt = null;
        this.changes.notify();
        return;
      case 'RunClaimed':
      case 'LeaseRenewed':
      case 'StepStarted':
        if (run === undefined) return;
        run.status = 'RUNNING';
        run.leaseExpiresAt = Number(data.leaseExpiresAt);
        return;
      case 'RunCompleted':
      case 'RunFailed':
      case 'RunCancelled':
        // Settled runs leave the index, so it holds only what is queued or running.
        if (this.runs.delete(runId)) this.changes.notify();
        return;
    }
  }
}
