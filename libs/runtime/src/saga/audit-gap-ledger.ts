import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { SagaStoreRole } from './audit-gap-ledger-store-mismatch.error';

/** A write whose audit event has not been seen yet. */
export interface PendingWrite {
  readonly runId: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: string;
  readonly deadlineAt: number;
}

/** A decision that took effect on a run and whose statement has not been seen in the audit chain yet. */
export interface PendingStatement {
  readonly runId: string;
  /** The decision, as `statementKey` names it. */
  readonly decision: string;
  readonly deadlineAt: number;
}

/** Which subscription a checkpoint belongs to: writes and their audits, decisions and their statements. */
export type SagaSource = 'writes' | 'audits' | 'decisions' | 'statements';

/**
 * The saga's durable state, in SQLite: per-source checkpoints, writes waiting
 * for their audit, and audits seen before their write (the two may come from
 * different stores, so either may arrive first). Each event is applied
 * together with its source's checkpoint in one transaction: after a crash the
 * saga resumes exactly where it stopped, never applying an event twice or
 * skipping one.
 */
export class AuditGapLedger {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(readonly path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // A process crash loses nothing (the WAL is in the OS); a power loss may lose the last commits, checkpoints
    // and state together, and the saga then applies those events again from the older checkpoints.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS saga_checkpoints (source TEXT PRIMARY KEY, position TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS pending_writes (
        run_id TEXT NOT NULL, step_id TEXT NOT NULL, tool_name TEXT NOT NULL, effect TEXT NOT NULL, deadline_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, step_id));
      CREATE INDEX IF NOT EXISTS pending_writes_deadline ON pending_writes (deadline_at);
      CREATE TABLE IF NOT EXISTS audited_steps (run_id TEXT NOT NULL, step_id TEXT NOT NULL, PRIMARY KEY (run_id, step_id));
      CREATE TABLE IF NOT EXISTS pending_statements (
        run_id TEXT NOT NULL, decision TEXT NOT NULL, deadline_at INTEGER NOT NULL, PRIMARY KEY (run_id, decision));
      CREATE INDEX IF NOT EXISTS pending_statements_deadline ON pending_statements (deadline_at);
      CREATE TABLE IF NOT EXISTS stated_decisions (run_id TEXT NOT NULL, decision TEXT NOT NULL, PRIMARY KEY (run_id, decision));
      CREATE TABLE IF NOT EXISTS saga_stores (role TEXT PRIMARY KEY, store_id TEXT NOT NULL, recorded_at INTEGER NOT NULL);
    `);
    this.statements = {
      checkpoint: this.db.prepare<[string], { position: string }>('SELECT position FROM saga_checkpoints WHERE source = ?'),
      saveCheckpoint: this.db.prepare('INSERT INTO saga_checkpoints (source, position) VALUES (?, ?) ON CONFLICT (source) DO UPDATE SET position = excluded.position'),
      removeAudited: this.db.prepare('DELETE FROM audited_steps WHERE run_id = ? AND step_id = ?'),
      addPending: this.db.prepare('INSERT OR IGNORE INTO pending_writes (run_id, step_id, tool_name, effect, deadline_at) VALUES (?, ?, ?, ?, ?)'),
      removePending: this.db.prepare('DELETE FROM pending_writes WHERE run_id = ? AND step_id = ?'),
      addAudited: this.db.prepare('INSERT OR IGNORE INTO audited_steps (run_id, step_id) VALUES (?, ?)'),
      due: this.db.prepare<[number], { run_id: string; step_id: string; tool_name: string; effect: string; deadline_at: number }>(
        'SELECT run_id, step_id, tool_name, effect, deadline_at FROM pending_writes WHERE deadline_at <= ? ORDER BY deadline_at LIMIT 1000',
      ),
      pendingCount: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM pending_writes'),
      removeStated: this.db.prepare('DELETE FROM stated_decisions WHERE run_id = ? AND decision = ?'),
      addPendingStatement: this.db.prepare('INSERT OR IGNORE INTO pending_statements (run_id, decision, deadline_at) VALUES (?, ?, ?)'),
      removePendingStatement: this.db.prepare('DELETE FROM pending_statements WHERE run_id = ? AND decision = ?'),
      postponeStatement: this.db.prepare('UPDATE pending_statements SET deadline_at = ? WHERE run_id = ? AND decision = ?'),
      addStated: this.db.prepare('INSERT OR IGNORE INTO stated_decisions (run_id, decision) VALUES (?, ?)'),
      dueStatements: this.db.prepare<[number], { run_id: string; decision: string; deadline_at: number }>(
        'SELECT run_id, decision, deadline_at FROM pending_statements WHERE deadline_at <= ? ORDER BY deadline_at LIMIT 1000',
      ),
      pendingStatementCount: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM pending_statements'),
    };
  }

  /** The identity of each store the ledger's state was made from, by role (none for a new ledger, or one made before identities were recorded). */
  storeIdentities(): ReadonlyMap<SagaStoreRole, string> {
    const rows = this.db.prepare('SELECT role, store_id FROM saga_stores').all() as Array<{ role: SagaStoreRole; store_id: string }>;
    return new Map(rows.map((r) => [r.role, r.store_id]));
  }

  /** Records the identity of the store the ledger follows in a role. */
  recordStoreIdentity(role: SagaStoreRole, storeId: string, now: number): void {
    this.db
      .prepare('INSERT INTO saga_stores (role, store_id, recorded_at) VALUES (?, ?, ?) ON CONFLICT (role) DO UPDATE SET store_id = excluded.store_id, recorded_at = excluded.recorded_at')
      .run(role, storeId, now);
  }

  /** The checkpoints of every source (for the identity check). */
  checkpoints(): ReadonlyMap<SagaSource, string> {
    const rows = this.db.prepare('SELECT source, position FROM saga_checkpoints').all() as Array<{ source: SagaSource; position: string }>;
    return new Map(rows.map((r) => [r.source, r.position]));
  }

  /** Forgets everything (checkpoints, pending deadlines, recorded stores), in one transaction: the saga then follows its stores from their start. */
  reset(): void {
    this.db.transaction(() => {
      for (const table of ['saga_checkpoints', 'pending_writes', 'audited_steps', 'pending_statements', 'stated_decisions', 'saga_stores']) this.db.exec(`DELETE FROM ${table}`);
    })();
  }

  /** The last position applied from `source`, if any. */
  checkpoint(source: SagaSource): string | undefined {
    return this.statements.checkpoint.get(source)?.position;
  }

  /** A write executed: wait for its audit, unless the audit was already seen. Atomic with the checkpoint. */
  writeExecuted(write: PendingWrite, position: string): void {
    this.db.transaction(() => {
      // Matched pairs leave both tables, so the ledger holds only what is still unmatched.
      if (this.statements.removeAudited.run(write.runId, write.stepId).changes === 0) {
        this.statements.addPending.run(write.runId, write.stepId, write.toolName, write.effect, write.deadlineAt);
      }
      this.statements.saveCheckpoint.run('writes', position);
    })();
  }

  /** A write's audit event arrived: its write, pending or still to come, is covered. Atomic with the checkpoint. */
  auditRecorded(runId: string, stepId: string, position: string): void {
    this.db.transaction(() => {
      if (this.statements.removePending.run(runId, stepId).changes === 0) this.statements.addAudited.run(runId, stepId);
      this.statements.saveCheckpoint.run('audits', position);
    })();
  }

  /** A decision took effect on a run: wait for its statement, unless it was already seen. Atomic with the checkpoint. */
  decisionTaken(pending: PendingStatement, position: string): void {
    this.db.transaction(() => {
      if (this.statements.removeStated.run(pending.runId, pending.decision).changes === 0) {
        this.statements.addPendingStatement.run(pending.runId, pending.decision, pending.deadlineAt);
      }
      this.statements.saveCheckpoint.run('decisions', position);
    })();
  }

  /** A decision's statement arrived in the audit chain: its decision, pending or still to come, is stated. Atomic with the checkpoint. */
  decisionStated(runId: string, decision: string, position: string): void {
    this.db.transaction(() => {
      if (this.statements.removePendingStatement.run(runId, decision).changes === 0) this.statements.addStated.run(runId, decision);
      this.statements.saveCheckpoint.run('statements', position);
    })();
  }

  /** Decisions whose statement was not seen by `now`. */
  dueStatements(now: number): PendingStatement[] {
    return this.statements.dueStatements.all(now).map((row) => ({ runId: row.run_id, decision: row.decision, deadlineAt: row.deadline_at }));
  }

  /** The statement is in the chain (stored late, or found): stop watching it. */
  resolveStatement(runId: string, decision: string): void {
    this.statements.removePendingStatement.run(runId, decision);
  }

  /** The statement could not be stored: try again at `deadlineAt`. */
  postponeStatement(runId: string, decision: string, deadlineAt: number): void {
    this.statements.postponeStatement.run(deadlineAt, runId, decision);
  }

  /** How many decisions wait for their statement. */
  pendingStatementCount(): number {
    return this.statements.pendingStatementCount.get()?.n ?? 0;
  }

  /** Runs `apply` in one transaction (the ledger's own transactions inside it become savepoints): one commit for a batch of events. */
  inTransaction(apply: () => void): void {
    this.db.transaction(apply)();
  }

  /** Moves a source's checkpoint past an event that needs nothing. */
  skip(source: SagaSource, position: string): void {
    this.statements.saveCheckpoint.run(source, position);
  }

  /** Pending writes whose grace period ended at `now`. */
  due(now: number): PendingWrite[] {
    return this.statements.due.all(now).map((row) => ({
      runId: row.run_id,
      stepId: row.step_id,
      toolName: row.tool_name,
      effect: row.effect,
      deadlineAt: row.deadline_at,
    }));
  }

  /** The gap was reported (or the audit found after all): stop watching it. */
  resolve(runId: string, stepId: string): void {
    this.statements.removePending.run(runId, stepId);
  }

  pendingCount(): number {
    return this.statements.pendingCount.get()?.n ?? 0;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
