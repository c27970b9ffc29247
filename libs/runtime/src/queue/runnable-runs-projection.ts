import type Database from 'better-sqlite3';
import type { RunMode, RunStatus } from '@agent-ledger/domain';
import { decodeRunEvent, isTerminalStatus, RUN_STATUS_ENTERED_BY, runStatusAfter } from '@agent-ledger/domain';
import type { EventProcessor, ProcessorDatabase, RecordedEvent } from '@agent-ledger/event-store';
import { eventTypeFilter } from '@agent-ledger/event-store';

/** The status of a run that is not finished (never a settled one: a settled run leaves the queue). */
export type RunnableStatus = Exclude<RunStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>;

/** What the queue knows of a run that is not finished. */
export interface RunnableRun {
  /** The run. */
  readonly runId: string;
  /** Who takes it when it is queued: a worker (`queued`), or its interactive caller. */
  readonly mode: RunMode;
  /** Where it is: queued, running, or waiting for a person. */
  readonly status: RunnableStatus;
  /** When it may be claimed (its request, its back-off's end, a decision). */
  readonly notBefore: number;
  /** When its lease expires, while RUNNING. */
  readonly leaseExpiresAt: number | null;
}

interface Row {
  run_id: string;
  mode: RunMode;
  status: RunnableStatus;
  not_before: number;
  lease_expires_at: number | null;
}

/** `status`: the domain's RunStatus of an unfinished run (QUEUED, RUNNING, WAITING_FOR_APPROVAL, WAITING_FOR_INPUT). */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS queue_runs (
  run_id TEXT PRIMARY KEY,
  mode TEXT NOT NULL,
  status TEXT NOT NULL,
  not_before INTEGER NOT NULL,
  lease_expires_at INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS queue_runs_by_due ON queue_runs (status, mode, not_before);
CREATE INDEX IF NOT EXISTS queue_runs_by_lease ON queue_runs (status, lease_expires_at);
`;

/**
 * The run events the queue reads: those that move a run's status, those that
 * carry its lease, and the cancel requests its listeners wait for. An event
 * type filter (not the whole `run` category), so the one reader of `$all`
 * can filter in the store for the queue and the saga together.
 */
export const QUEUE_EVENT_TYPES: readonly string[] = [
  ...Object.entries(RUN_STATUS_ENTERED_BY)
    .filter(([, status]) => status !== null)
    .map(([type]) => type),
  'LeaseRenewed',
  'StepStarted',
  'CancelRequested',
];

/** The event types that change what a worker may claim: the queue's change signal fires on them. */
export const CLAIMABLE_CHANGES: ReadonlySet<string> = new Set([
  'RunRequested',
  'RunRequeued',
  'ApprovalGranted',
  'ApprovalDenied',
  'InputSubmitted',
  'RunCompleted',
  'RunFailed',
  'RunCancelled',
]);

/**
 * The queue as a checkpointed projection: a table (`queue_runs`) of the runs
 * that are not finished (queued, running, waiting for a person, with mode, `notBefore` and
 * `leaseExpiresAt`) in the processors' database, applied with its checkpoint
 * in the batch's transaction. A settled run leaves the table, so it holds only
 * the unfinished runs, and a process that starts reads the events after the
 * checkpoint, not the history.
 */
export class RunnableRunsProjection implements EventProcessor {
  readonly name = 'queue';
  readonly filter = eventTypeFilter(...QUEUE_EVENT_TYPES);
  private readonly statements: {
    readonly get: Database.Statement<[string], Row>;
    readonly insert: Database.Statement<[string, string, number]>;
    readonly update: Database.Statement<[string, string, number, number | null, string]>;
    readonly moveLease: Database.Statement<[number, string, number]>;
    readonly remove: Database.Statement<[string]>;
    readonly due: Database.Statement<[string, number, number], { run_id: string }>;
    readonly expired: Database.Statement<[number], { run_id: string }>;
    readonly unclaimedInteractive: Database.Statement<[number], { run_id: string }>;
    readonly counts: Database.Statement<[], { status: RunnableStatus; n: number }>;
  };

  /**
   * @param observe called after each committed batch with its run events (see `EventProcessor.observe`)
   */
  constructor(
    private readonly database: ProcessorDatabase,
    readonly observe?: (events: readonly RecordedEvent[]) => void,
  ) {
    const db = database.sqlite;
    db.exec(SCHEMA);
    this.statements = {
      get: db.prepare('SELECT * FROM queue_runs WHERE run_id = ?'),
      insert: db.prepare(
        "INSERT INTO queue_runs (run_id, mode, status, not_before, lease_expires_at) VALUES (?, ?, 'QUEUED', ?, NULL) ON CONFLICT (run_id) DO NOTHING",
      ),
      update: db.prepare('UPDATE queue_runs SET mode = ?, status = ?, not_before = ?, lease_expires_at = ? WHERE run_id = ?'),
      moveLease: db.prepare('UPDATE queue_runs SET lease_expires_at = ? WHERE run_id = ? AND lease_expires_at IS NOT ?'),
      remove: db.prepare('DELETE FROM queue_runs WHERE run_id = ?'),
      due: db.prepare("SELECT run_id FROM queue_runs WHERE status = 'QUEUED' AND mode = ? AND not_before <= ? ORDER BY not_before, run_id LIMIT ?"),
      expired: db.prepare("SELECT run_id FROM queue_runs WHERE status = 'RUNNING' AND lease_expires_at <= ? ORDER BY lease_expires_at, run_id"),
      unclaimedInteractive: db.prepare("SELECT run_id FROM queue_runs WHERE status = 'QUEUED' AND mode = 'interactive' AND not_before <= ? ORDER BY not_before, run_id"),
      counts: db.prepare('SELECT status, COUNT(*) AS n FROM queue_runs GROUP BY status'),
    };
  }

  apply(events: readonly RecordedEvent[]): void {
    for (const event of events) this.applyOne(event);
  }

  reset(): void {
    this.database.sqlite.exec('DELETE FROM queue_runs');
  }

  /** Queued runs of a mode due at `now`, oldest due first; the first `limit` of them when given. */
  dueQueued(now: number, mode: RunMode, limit?: number): string[] {
    // SQLite's LIMIT -1: no limit.
    return this.statements.due.all(mode, now, limit ?? -1).map((r) => r.run_id);
  }

  /** Running runs whose lease expired by `now`. */
  expiredLeases(now: number): string[] {
    return this.statements.expired.all(now).map((r) => r.run_id);
  }

  /** Interactive runs queued since `requestedBy` or earlier. */
  unclaimedInteractive(requestedBy: number): string[] {
    return this.statements.unclaimedInteractive.all(requestedBy).map((r) => r.run_id);
  }

  /** One run, if it is not finished. */
  run(runId: string): RunnableRun | undefined {
    const row = this.statements.get.get(runId);
    return row === undefined ? undefined : { runId: row.run_id, mode: row.mode, status: row.status, notBefore: row.not_before, leaseExpiresAt: row.lease_expires_at };
  }

  /** How many runs are in each state. */
  counts(): { queued: number; running: number; waiting: number } {
    const counts = { queued: 0, running: 0, waiting: 0 };
    // WAITING_FOR_APPROVAL and WAITING_FOR_INPUT count as waiting.
    for (const { status, n } of this.statements.counts.all()) counts[status === 'QUEUED' ? 'queued' : status === 'RUNNING' ? 'running' : 'waiting'] += n;
    return counts;
  }

  /** Decoded by the domain's codec (an old payload upcast), moved by the domain's status machine (`runStatusAfter`). */
  private applyOne(recorded: RecordedEvent): void {
    const event = decodeRunEvent(recorded);
    if (event === null) return;
    const runId = event.data.runId;
    if (event.type === 'StepStarted' || event.type === 'LeaseRenewed') {
      // Moves only the lease (the status machine keeps the status; a run the table lacks stays out): one write, no read.
      this.statements.moveLease.run(event.data.leaseExpiresAt, runId, event.data.leaseExpiresAt);
      return;
    }
    const run = this.run(runId);
    const status = runStatusAfter(run?.status ?? null, event);
    if (status === null) return;
    if (isTerminalStatus(status)) {
      // Settled runs leave the table, so it holds only what is not finished.
      this.statements.remove.run(runId);
      return;
    }
    if (run === undefined) {
      if (event.type === 'RunRequested') this.statements.insert.run(runId, event.data.mode, event.data.requestedAt);
      return;
    }
    const save = (next: Partial<RunnableRun>): void => {
      const merged = { ...run, status: status as RunnableStatus, ...next };
      this.statements.update.run(merged.mode, merged.status, merged.notBefore, merged.leaseExpiresAt, runId);
    };
    switch (event.type) {
      case 'RunRequeued':
        return save({ notBefore: event.data.notBefore, leaseExpiresAt: null });
      case 'RunClaimed':
        return save({ leaseExpiresAt: event.data.leaseExpiresAt });
      case 'ApprovalRequested':
      case 'InputRequested':
        // Waiting for a person: neither claimable nor reapable (no lease).
        return save({ leaseExpiresAt: null });
      case 'ApprovalGranted':
      case 'ApprovalDenied':
      case 'InputSubmitted':
        // After a pause a worker resumes the run, whatever its mode (its interactive caller is gone).
        return save({ notBefore: event.type === 'InputSubmitted' ? event.data.submittedAt : event.data.decidedAt, mode: 'queued' });
      default:
        if (status !== run.status) save({});
        return;
    }
  }
}
