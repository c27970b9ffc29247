import type Database from 'better-sqlite3';

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

/** Which processor of the saga a checkpoint belongs to: writes and their audits, decisions and their statements. */
export type SagaSource = 'writes' | 'audits' | 'decisions' | 'statements';

/** The saga's tables (the same as a ledger file of an earlier version holds, so that one is imported row for row). */
export const AUDIT_GAP_LEDGER_TABLES = ['pending_writes', 'audited_steps', 'pending_statements', 'stated_decisions'] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pending_writes (
  run_id TEXT NOT NULL, step_id TEXT NOT NULL, tool_name TEXT NOT NULL, effect TEXT NOT NULL, deadline_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, step_id));
CREATE INDEX IF NOT EXISTS pending_writes_deadline ON pending_writes (deadline_at);
CREATE TABLE IF NOT EXISTS audited_steps (run_id TEXT NOT NULL, step_id TEXT NOT NULL, PRIMARY KEY (run_id, step_id));
CREATE TABLE IF NOT EXISTS pending_statements (
  run_id TEXT NOT NULL, decision TEXT NOT NULL, deadline_at INTEGER NOT NULL, PRIMARY KEY (run_id, decision));
CREATE INDEX IF NOT EXISTS pending_statements_deadline ON pending_statements (deadline_at);
CREATE TABLE IF NOT EXISTS stated_decisions (run_id TEXT NOT NULL, decision TEXT NOT NULL, PRIMARY KEY (run_id, decision));
`;

/**
 * The saga's durable state, in the processors' database: writes waiting for
 * their audit, audits seen before their write (the two may come from
 * different stores, so either may arrive first), and the same for decisions
 * and their statements. The saga's processors write it inside the batch's
 * transaction, with their checkpoints: after a crash the saga resumes exactly
 * where it stopped, never applying an event twice or skipping one.
 */
export class AuditGapLedger {
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.statements = {
      removeAudited: db.prepare('DELETE FROM audited_steps WHERE run_id = ? AND step_id = ?'),
      addPending: db.prepare('INSERT OR IGNORE INTO pending_writes (run_id, step_id, tool_name, effect, deadline_at) VALUES (?, ?, ?, ?, ?)'),
      removePending: db.prepare('DELETE FROM pending_writes WHERE run_id = ? AND step_id = ?'),
      addAudited: db.prepare('INSERT OR IGNORE INTO audited_steps (run_id, step_id) VALUES (?, ?)'),
      due: db.prepare<[number], { run_id: string; step_id: string; tool_name: string; effect: string; deadline_at: number }>(
        'SELECT run_id, step_id, tool_name, effect, deadline_at FROM pending_writes WHERE deadline_at <= ? ORDER BY deadline_at LIMIT 1000',
      ),
      pendingCount: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM pending_writes'),
      removeStated: db.prepare('DELETE FROM stated_decisions WHERE run_id = ? AND decision = ?'),
      addPendingStatement: db.prepare('INSERT OR IGNORE INTO pending_statements (run_id, decision, deadline_at) VALUES (?, ?, ?)'),
      removePendingStatement: db.prepare('DELETE FROM pending_statements WHERE run_id = ? AND decision = ?'),
      postponeStatement: db.prepare('UPDATE pending_statements SET deadline_at = ? WHERE run_id = ? AND decision = ?'),
      addStated: db.prepare('INSERT OR IGNORE INTO stated_decisions (run_id, decision) VALUES (?, ?)'),
      dueStatements: db.prepare<[number], { run_id: string; decision: string; deadline_at: number }>(
        'SELECT run_id, decision, deadline_at FROM pending_statements WHERE deadline_at <= ? ORDER BY deadline_at LIMIT 1000',
      ),
      pendingStatementCount: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM pending_statements'),
    };
  }

  /** Whether the database is open (it closes with the application). */
  get open(): boolean {
    return this.db.open;
  }

  /** Forgets every pending deadline and every early audit or statement. */
  reset(): void {
    for (const table of AUDIT_GAP_LEDGER_TABLES) this.db.exec(`DELETE FROM ${table}`);
  }

  /** A write executed: wait for its audit, unless the audit was already seen. */
  writeExecuted(write: PendingWrite): void {
    // Matched pairs leave both tables, so the ledger holds only what is still unmatched.
    if (this.statements.removeAudited.run(write.runId, write.stepId).changes === 0) {
      this.statements.addPending.run(write.runId, write.stepId, write.toolName, write.effect, write.deadlineAt);
    }
  }

  /** A write's audit event arrived: its write, pending or still to come, is covered. */
  auditRecorded(runId: string, stepId: string): void {
    if (this.statements.removePending.run(runId, stepId).changes === 0) this.statements.addAudited.run(runId, stepId);
  }

  /** A decision took effect on a run: wait for its statement, unless it was already seen. */
  decisionTaken(pending: PendingStatement): void {
    if (this.statements.removeStated.run(pending.runId, pending.decision).changes === 0) {
      this.statements.addPendingStatement.run(pending.runId, pending.decision, pending.deadlineAt);
    }
  }

  /** A decision's statement arrived in the audit chain: its decision, pending or still to come, is stated. */
  decisionStated(runId: string, decision: string): void {
    if (this.statements.removePendingStatement.run(runId, decision).changes === 0) this.statements.addStated.run(runId, decision);
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

  /** How many writes wait for their audit. */
  pendingCount(): number {
    return this.statements.pendingCount.get()?.n ?? 0;
  }
}
