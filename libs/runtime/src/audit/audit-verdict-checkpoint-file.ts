import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { AuditChainBreak } from '@agent-ledger/domain';
import type { Position } from '@agent-ledger/event-store';
import { parsePosition } from '@agent-ledger/event-store';
import type { RunChainBreak } from './audit-store-verdict';
import type { AuditVerdictRunState } from './audit-verdict-builder';
import { AuditVerdictBuilder } from './audit-verdict-builder';

/** The format of the checkpoint file this version writes and reads (a file of another format is not used). */
export const AUDIT_VERDICT_CHECKPOINT_FORMAT = 1;

/** The name of the verdict's checkpoint file, in the read models' folder. */
export const AUDIT_VERDICT_CHECKPOINT_FILE = 'audit-verdict.sqlite';

/** Rows written, or read, between two turns of the event loop when the whole checkpoint is written or loaded. */
const CHUNK = 2_000;

/** Where a checkpoint stopped reading one store: the last event the verdict read from it. */
export interface StoreMark {
  readonly position: Position;
  readonly eventId: string;
}

/** A verified checkpoint of the verdict: the facts read, where each store was read up to, and where the rotating head check stands. */
export interface VerdictCheckpoint {
  readonly builder: AuditVerdictBuilder;
  readonly run: StoreMark | null;
  readonly audit: StoreMark | null;
  /** The ordinal the next rotating head check starts at. */
  readonly cursor: number;
  /** Rounds of the rotating head check completed since the full pass the checkpoint comes from. */
  readonly rounds: number;
}

/** The identities of the two stores a checkpoint was made from (`EventStore.storeIdentity().id`). */
export interface VerdictStoreIdentities {
  readonly runStore: string;
  readonly auditStore: string;
}

/** What {@link AuditVerdictCheckpointFile.load} found: a checkpoint to continue from, or why there is none to use. */
export type CheckpointLoad = { readonly checkpoint: VerdictCheckpoint; readonly refused?: undefined } | { readonly checkpoint?: undefined; readonly refused: string };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS verdict_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS verdict_runs (ordinal INTEGER PRIMARY KEY, run_id TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS verdict_breaks (seq INTEGER PRIMARY KEY, run_id TEXT NOT NULL, record_index INTEGER NOT NULL, step_id TEXT, problem TEXT NOT NULL);
`;

type Meta = Readonly<Record<string, string>>;

/**
 * The audit verdict's checkpoint on disk: a SQLite file (in the service, the
 * read models' folder's `audit-verdict.sqlite`) holding the identities of the
 * two stores it was made from, the last event read in each, each run's facts
 * (one row per run, rewritten only for the runs a review changed), the chain
 * breaks found, the rotating head check's place, and its format. One process
 * writes it: each save checks that the file is still the one this process
 * loaded or wrote last (a generation number), and gives up otherwise.
 *
 * It is a cache of facts read from the stores, not a record: someone who can
 * edit the data folder can edit it, so a full pass never reads it.
 */
export class AuditVerdictCheckpointFile {
  private db: Database.Database | null = null;
  /** The generation this process loaded or wrote last (null: none yet). */
  private generation: number | null = null;
  /** Breaks of the builder already in the file. */
  private savedBreaks = 0;
  private closed = false;

  constructor(readonly path: string) {}

  /**
   * The checkpoint in the file, when it was made from these stores, in this
   * format, and reads whole; otherwise why it is not used (a sentence for
   * `fullBecause`).
   */
  async load(identities: VerdictStoreIdentities): Promise<CheckpointLoad> {
    if (!existsSync(this.path)) return { refused: 'no checkpoint file yet' };
    let db: Database.Database;
    try {
      db = this.opened();
    } catch (error) {
      return { refused: `the checkpoint file could not be read (${messageOf(error)})` };
    }
    try {
      db.exec('BEGIN');
      try {
        return await this.read(db, identities);
      } finally {
        if (db.inTransaction) db.exec('COMMIT');
      }
    } catch (error) {
      return { refused: `the checkpoint file could not be read (${messageOf(error)})` };
    }
  }

  /**
   * Writes the runs a review changed, the breaks found since the last save,
   * and where the stores were read up to, in one transaction.
   * @returns false (and writes nothing) when another process wrote the file since this one loaded or wrote it
   */
  saveChanges(checkpoint: VerdictCheckpoint, changedRuns: readonly string[]): boolean {
    const db = this.opened();
    const save = db.transaction((): boolean => {
      const meta = readMeta(db);
      if (this.generation === null || Number(meta['generation']) !== this.generation || meta['invalid'] !== undefined) return false;
      const upsert = db.prepare('INSERT INTO verdict_runs (ordinal, run_id, state) VALUES (?, ?, ?) ON CONFLICT (ordinal) DO UPDATE SET run_id = excluded.run_id, state = excluded.state');
      for (const runId of changedRuns) {
        const state = checkpoint.builder.runState(runId);
        if (state !== undefined) upsert.run(state.ordinal, state.runId, stateText(state));
      }
      this.insertBreaks(db, checkpoint.builder.breaksFound().slice(this.savedBreaks));
      this.writeMeta(db, positionsMeta(checkpoint, this.generation + 1));
      return true;
    });
    if (!save()) return false;
    this.generation = (this.generation as number) + 1;
    this.savedBreaks = checkpoint.builder.breaksFound().length;
    return true;
  }

  /**
   * Replaces the file's content with a checkpoint made by a full pass, in one
   * transaction written a chunk at a time (the event loop turns between
   * chunks). A file that cannot be opened is replaced.
   */
  async saveAll(checkpoint: VerdictCheckpoint, identities: VerdictStoreIdentities): Promise<void> {
    if (this.closed) throw new Error('the checkpoint file is closed');
    let db: Database.Database;
    try {
      db = this.opened();
      db.prepare('SELECT count(*) FROM verdict_meta').get();
    } catch {
      this.release();
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${this.path}${suffix}`, { force: true });
      db = this.opened();
    }
    const generation = (this.generation ?? generationOf(db)) + 1;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec('DELETE FROM verdict_runs; DELETE FROM verdict_breaks; DELETE FROM verdict_meta;');
      const insert = db.prepare('INSERT INTO verdict_runs (ordinal, run_id, state) VALUES (?, ?, ?)');
      let n = 0;
      for (const state of checkpoint.builder.runStates()) {
        insert.run(state.ordinal, state.runId, stateText(state));
        if (++n % CHUNK === 0) await nextTurn();
      }
      this.insertBreaks(db, checkpoint.builder.breaksFound());
      this.writeMeta(db, {
        format: String(AUDIT_VERDICT_CHECKPOINT_FORMAT),
        runStore: identities.runStore,
        auditStore: identities.auditStore,
        savedAt: new Date().toISOString(),
        ...positionsMeta(checkpoint, generation),
      });
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
    this.generation = generation;
    this.savedBreaks = checkpoint.builder.breaksFound().length;
  }

  /**
   * Marks the checkpoint as not to be used (`reason`, for the next process's
   * `fullBecause`), before the full pass that will replace it: should that
   * pass fail, no later review continues from a checkpoint found wrong.
   */
  invalidate(reason: string): void {
    try {
      const db = this.opened();
      db.prepare("INSERT INTO verdict_meta (key, value) VALUES ('invalid', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(reason);
    } catch {
      // A file that cannot be written is not used either: the next load refuses it, or the full pass replaces it.
    }
  }

  /** Closes the file; it is not opened again (a review still running then keeps its checkpoint in memory only). */
  close(): void {
    this.closed = true;
    this.release();
  }

  private release(): void {
    this.db?.close();
    this.db = null;
  }

  private opened(): Database.Database {
    if (this.closed) throw new Error('the checkpoint file is closed');
    if (this.db !== null) return this.db;
    mkdirSync(dirname(resolve(this.path)), { recursive: true });
    const db = new Database(this.path, { timeout: 5_000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(SCHEMA);
    } catch (error) {
      db.close();
      throw error;
    }
    this.db = db;
    return db;
  }

  private async read(db: Database.Database, identities: VerdictStoreIdentities): Promise<CheckpointLoad> {
    const meta = readMeta(db);
    if (meta['format'] === undefined) return { refused: 'no checkpoint in the checkpoint file yet' };
    if (meta['format'] !== String(AUDIT_VERDICT_CHECKPOINT_FORMAT)) {
      return { refused: `the checkpoint file is of format ${meta['format']}, this version reads format ${AUDIT_VERDICT_CHECKPOINT_FORMAT}` };
    }
    if (meta['invalid'] !== undefined) return { refused: `the checkpoint file was set aside by an earlier review: ${meta['invalid']}` };
    for (const [role, field] of [['run store', 'runStore'], ['audit store', 'auditStore']] as const) {
      if (meta[field] !== identities[field]) return { refused: `the checkpoint file was made from other stores (${role} ${String(meta[field])} there, ${identities[field]} here)` };
    }
    const runs: AuditVerdictRunState[] = [];
    const page = db.prepare<[number, number], { ordinal: number; run_id: string; state: string }>('SELECT ordinal, run_id, state FROM verdict_runs WHERE ordinal >= ? ORDER BY ordinal LIMIT ?');
    for (let from = 0; ; ) {
      const rows = page.all(from, CHUNK);
      for (const row of rows) runs.push(parseState(row.ordinal, row.run_id, row.state));
      if (rows.length < CHUNK) break;
      from = (rows.at(-1) as { ordinal: number }).ordinal + 1;
      await nextTurn();
    }
    const breaks = db
      .prepare<[], { run_id: string; record_index: number; step_id: string | null; problem: AuditChainBreak['problem'] }>('SELECT run_id, record_index, step_id, problem FROM verdict_breaks ORDER BY seq')
      .all()
      .map((b): RunChainBreak => ({ runId: b.run_id, index: b.record_index, stepId: b.step_id, problem: b.problem }));
    const builder = AuditVerdictBuilder.restore(runs, breaks);
    const generation = Number(meta['generation']);
    if (!Number.isSafeInteger(generation)) throw new Error(`bad generation ${String(meta['generation'])}`);
    this.generation = generation;
    this.savedBreaks = breaks.length;
    return {
      checkpoint: {
        builder,
        run: markOf(meta['runPosition'], meta['runEventId']),
        audit: markOf(meta['auditPosition'], meta['auditEventId']),
        cursor: Number(meta['cursor'] ?? 0),
        rounds: Number(meta['rounds'] ?? 0),
      },
    };
  }

  private insertBreaks(db: Database.Database, breaks: readonly RunChainBreak[]): void {
    const insert = db.prepare('INSERT INTO verdict_breaks (run_id, record_index, step_id, problem) VALUES (?, ?, ?, ?)');
    for (const b of breaks) insert.run(b.runId, b.index, b.stepId, b.problem);
  }

  private writeMeta(db: Database.Database, values: Meta): void {
    const upsert = db.prepare('INSERT INTO verdict_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    for (const [key, value] of Object.entries(values)) upsert.run(key, value);
  }
}

function readMeta(db: Database.Database): Meta {
  return Object.fromEntries(db.prepare<[], { key: string; value: string }>('SELECT key, value FROM verdict_meta').all().map((r) => [r.key, r.value]));
}

function generationOf(db: Database.Database): number {
  const value = Number(readMeta(db)['generation'] ?? 0);
  return Number.isSafeInteger(value) ? value : 0;
}

function positionsMeta(checkpoint: VerdictCheckpoint, generation: number): Meta {
  return {
    runPosition: checkpoint.run?.position ?? '',
    runEventId: checkpoint.run?.eventId ?? '',
    auditPosition: checkpoint.audit?.position ?? '',
    auditEventId: checkpoint.audit?.eventId ?? '',
    cursor: String(checkpoint.cursor),
    rounds: String(checkpoint.rounds),
    generation: String(generation),
  };
}

function markOf(position: string | undefined, eventId: string | undefined): StoreMark | null {
  if (position === undefined || position === '') return null;
  if (eventId === undefined || eventId === '') throw new Error('a store position without its event id');
  return { position: parsePosition(position), eventId };
}

/**
 * A run's row: its state without its id and ordinal, which are columns, and
 * its step ids without the run id they start with (`/r0/t1`; any other is
 * kept whole after a `=`): a third of the file.
 */
function stateText(state: AuditVerdictRunState): string {
  const { runId, ordinal: _ordinal, ...rest } = state;
  const step = (stepId: string) => (stepId.startsWith(`${runId}/`) ? stepId.slice(runId.length) : `=${stepId}`);
  return JSON.stringify({
    ...rest,
    writes: rest.writes?.map(([stepId, ...write]) => [step(stepId), ...write]) ?? null,
    audits: rest.audits?.map(([stepId, attempt]) => [step(stepId), attempt]) ?? null,
    checker: rest.checker === null ? null : { ...rest.checker, steps: rest.checker.steps.map(step) },
  });
}

function parseState(ordinal: number, runId: string, text: string): AuditVerdictRunState {
  const state = JSON.parse(text) as Omit<AuditVerdictRunState, 'runId' | 'ordinal'> | null;
  if (typeof state !== 'object' || state === null || typeof state.auditRecords !== 'number') throw new Error(`the row of run ${runId} is not a run's state`);
  const step = (stored: string): string => {
    if (stored.startsWith('/')) return `${runId}${stored}`;
    if (stored.startsWith('=')) return stored.slice(1);
    throw new Error(`the row of run ${runId} has a step id of no known form`);
  };
  return {
    ...state,
    runId,
    ordinal,
    writes: state.writes?.map(([stepId, ...write]) => [step(stepId), ...write] as const) ?? null,
    audits: state.audits?.map(([stepId, attempt]) => [step(stepId), attempt] as const) ?? null,
    checker: state.checker === null ? null : { ...state.checker, steps: state.checker.steps.map(step) },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
