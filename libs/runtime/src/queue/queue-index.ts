import { Injectable, Logger } from '@nestjs/common';
import type { CancelRequested, RunMode } from '@agent-ledger/domain';
import { decodeRunEvent } from '@agent-ledger/domain';
import type { RecordedEvent } from '@agent-ledger/event-store';
import { EventProcessors } from '../persistence/event-processors';
import { ChangeSignal } from './change-signal';
import type { RunnableRun } from './runnable-runs-projection';
import { CLAIMABLE_CHANGES, RunnableRunsProjection } from './runnable-runs-projection';

/**
 * The index of the runs that are not finished (queued, running, waiting): a
 * checkpointed projection of the runs' events ({@link RunnableRunsProjection})
 * in the processors' database, fed by the process's one reader of the run
 * store ({@link EventProcessors}), so it also sees other processes' appends,
 * and a process that starts reads only the events after its checkpoint. It
 * only proposes: the claim and the reap are decided on the run's stream, so a
 * stale index costs a refused command, never a wrong write.
 */
@Injectable()
export class QueueIndex {
  /** Notified whenever a run becomes claimable or changes. */
  readonly changes = new ChangeSignal();
  private readonly logger = new Logger(QueueIndex.name);
  private readonly cancelListeners = new Map<string, Set<(request: CancelRequested['data']) => void>>();
  private readonly projection: RunnableRunsProjection;

  constructor(private readonly processors: EventProcessors) {
    this.projection = new RunnableRunsProjection(processors.database, (events) => this.observe(events));
    processors.register('runs', this.projection);
  }

  /**
   * Starts the process's processors (idempotent): the index catches up from
   * its checkpoint, then follows. If the store fails, the runner reads again
   * from the checkpoints with a back-off (logged); a processors' database made
   * from another store was refused or reset when the module started.
   */
  start(): void {
    void this.processors.start().catch((error: unknown) => this.logger.error(`The queue index could not start: ${error instanceof Error ? error.message : String(error)}`));
  }

  /**
   * Calls `listener` with the request (who asked, and why) when a cancel of
   * `runId` is recorded (by any process).
   * @returns the function that stops listening.
   */
  onCancelRequested(runId: string, listener: (request: CancelRequested['data']) => void): () => void {
    const listeners = this.cancelListeners.get(runId) ?? new Set();
    listeners.add(listener);
    this.cancelListeners.set(runId, listeners);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.cancelListeners.delete(runId);
    };
  }

  /** Queued runs due at `now`, oldest due first; the first `limit` of them when given (a worker skipping the runs it holds asks for one more than it holds). */
  dueQueued(now: number, mode: RunMode = 'queued', limit?: number): string[] {
    if (this.closed) return [];
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) throw new RangeError(`dueQueued: limit must be a non-negative integer, got ${String(limit)}`);
    return this.projection.dueQueued(now, mode, limit);
  }

  /** Running runs whose lease expired before `now`. */
  expiredLeases(now: number): string[] {
    if (this.closed) return [];
    return this.projection.expiredLeases(now);
  }

  /**
   * Interactive runs still queued `maxAgeMs` after they were requested: their
   * caller never claimed them (it died between the request and the claim).
   */
  unclaimedInteractive(now: number, maxAgeMs: number): string[] {
    if (this.closed) return [];
    return this.projection.unclaimedInteractive(now - maxAgeMs);
  }

  /** A run the index knows as not finished. */
  run(runId: string): RunnableRun | undefined {
    return this.projection.run(runId);
  }

  /** How many unsettled runs the index knows in each state (for diagnostics). */
  counts(): { queued: number; running: number; waiting: number } {
    return this.projection.counts();
  }

  /** Whether the processors' database closed (the application shuts down): a closed index proposes nothing. */
  private get closed(): boolean {
    return !this.processors.database.open;
  }

  /** After each committed batch (whichever process applied it): wakes the workers, tells the segments of cancels. */
  private observe(events: readonly RecordedEvent[]): void {
    let changed = false;
    for (const event of events) {
      if (CLAIMABLE_CHANGES.has(event.type)) changed = true;
      if (event.type !== 'CancelRequested' || !this.cancelListeners.has(String(event.data.runId))) continue;
      const request = decodeRunEvent(event);
      if (request?.type !== 'CancelRequested') continue;
      for (const listener of [...(this.cancelListeners.get(request.data.runId) ?? [])]) listener(request.data);
    }
    if (changed) this.changes.notify();
  }
}
