import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type { RunMode } from '@agent-ledger/domain';
import { StreamCategory } from '@agent-ledger/domain';
import type { EventStore, EventSubscription, Position, RecordedEvent } from '@agent-ledger/event-store';
import { categoryFilter } from '@agent-ledger/event-store';
import { ChangeSignal } from './change-signal';
import { RUN_EVENT_STORE } from '../persistence/event-store.tokens';

/** What the queue needs to know of a run. */
interface IndexedRun {
  readonly runId: string;
  mode: RunMode;
  status: 'QUEUED' | 'RUNNING' | 'WAITING';
  notBefore: number;
  leaseExpiresAt: number | null;
}

/**
 * An in-memory index of queued, running and waiting runs, fed by a catch-up
 * subscription to the runs' events (so it also sees other processes'
 * appends). It only proposes: the claim and the reap are decided on the run's
 * stream, so a stale index costs a refused command, never a wrong write.
 */
@Injectable()
export class QueueIndex implements OnModuleDestroy {
  private readonly logger = new Logger(QueueIndex.name);
  private readonly runs = new Map<string, IndexedRun>();
  private subscription: EventSubscription | null = null;
  private destroyed = false;
  private consuming: Promise<void> | null = null;
  /** Notified whenever a run becomes claimable or changes. */
  readonly changes = new ChangeSignal();
  private readonly cancelListeners = new Map<string, Set<() => void>>();

  constructor(@Inject(RUN_EVENT_STORE) private readonly store: EventStore) {}

  /**
   * Starts following the runs' events from the beginning of the store.
   * Idempotent. If the subscription fails (the store is unreachable for
   * longer than its adapter retries), it is opened again after the last event
   * seen, with a capped back-off, until the module is destroyed.
   */
  start(): void {
    if (this.consuming !== null) return;
    this.consuming = this.follow();
  }

  private async follow(): Promise<void> {
    let after: Position | undefined;
    let delayMs = 100;
    while (!this.destroyed) {
      const subscription = this.store.subscribeToAll({ filter: categoryFilter(StreamCategory.RUN), after });
      this.subscription = subscription;
      try {
        for await (const event of subscription) {
          this.apply(event);
          after = event.position;
          delayMs = 100;
        }
      } catch (error) {
        if (this.destroyed) return;
        this.logger.error(`The queue index lost its subscription; following again in ${delayMs} ms: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        delayMs = Math.min(delayMs * 2, 5000);
      }
    }
  }

  /**
   * Calls `listener` when a cancel of `runId` is recorded (by any process).
   * @returns the function that stops listening.
   */
  onCancelRequested(runId: string, listener: () => void): () => void {
    const listeners = this.cancelListeners.get(runId) ?? new Set();
    listeners.add(listener);
    this.cancelListeners.set(runId, listeners);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.cancelListeners.delete(runId);
    };
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

  /**
   * Interactive runs still queued `maxAgeMs` after they were requested: their
   * caller never claimed them (it died between the request and the claim).
   */
  unclaimedInteractive(now: number, maxAgeMs: number): string[] {
    return [...this.runs.values()].filter((run) => run.status === 'QUEUED' && run.mode === 'interactive' && run.notBefore + maxAgeMs <= now).map((run) => run.runId);
  }

  /** How many unsettled runs the index knows in each state (for diagnostics). */
  counts(): { queued: number; running: number; waiting: number } {
    const counts = { queued: 0, running: 0, waiting: 0 };
    for (const run of this.runs.values()) counts[run.status === 'QUEUED' ? 'queued' : run.status === 'RUNNING' ? 'running' : 'waiting']++;
    return counts;
  }

  async onModuleDestroy(): Promise<void> {
    this.destroyed = true;
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
      case 'ApprovalRequested':
      case 'InputRequested':
        // Waiting for a person: neither claimable nor reapable (no lease).
        if (run === undefined) return;
        run.status = 'WAITING';
        run.leaseExpiresAt = null;
        return;
      case 'ApprovalGranted':
      case 'ApprovalDenied':
      case 'InputSubmitted':
        if (run === undefined) return;
        run.status = 'QUEUED';
        run.notBefore = Number(event.type === 'InputSubmitted' ? data.submittedAt : data.decidedAt);
        // After a pause a worker resumes the run, whatever its mode (its interactive caller is gone).
        run.mode = 'queued';
        this.changes.notify();
        return;
      case 'CancelRequested':
        for (const listener of [...(this.cancelListeners.get(runId) ?? [])]) listener();
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
