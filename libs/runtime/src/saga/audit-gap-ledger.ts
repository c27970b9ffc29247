import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** A write whose audit event has not been seen yet. */
export interface PendingWrite {
  readonly runId: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: string;
  readonly deadlineAt: number;
}

/** Which subscription a checkpoint belongs to. */
export type SagaSource = 'writes' | 'audits';

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

  constructor(path: string) {
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
    };
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
