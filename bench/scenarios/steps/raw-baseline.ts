/**
 * The raw baseline of the step-throughput benchmark: better-sqlite3 appending
 * the events a tool step records (`StepStarted`, `ToolExecuted` on the run's
 * stream, `AuditRecorded` on its audit stream), with the product's sizes and
 * durability, and nothing of the product around it.
 */
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { join } from 'node:path';
import type { Durability } from '@agent-ledger/event-store';
import { Latencies } from '../../support/stats';

/** One event as the baseline writes it: the product's serialised data and metadata. */
export interface RawEvent {
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  /** Whether it goes to the audit stream rather than the run stream. */
  readonly audit: boolean;
}

/** How the baseline commits. */
export type RawCommitMode =
  /** The events of every step pending in one event-loop turn, in one transaction (the ideal group commit). */
  | 'groupCommit'
  /** Each event in its own transaction: three commits per step. */
  | 'separateCommits';

/** What a baseline round measured. */
export interface RawRoundResult {
  readonly stepsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly transactions: number;
}

/** The same table and indexes as the embedded store's `events`, so each event costs the same index writes. */
const SCHEMA = `
CREATE TABLE events (
  position INTEGER PRIMARY KEY AUTOINCREMENT, stream_name TEXT NOT NULL, revision INTEGER NOT NULL, event_id TEXT NOT NULL,
  event_type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (stream_name, revision)
);
CREATE INDEX events_stream_event_id ON events (stream_name, event_id, revision);`;

/**
 * `runs` concurrent runs, each recording `stepsPerRun` steps one after the
 * other (a step waits for its commit before the next starts), `totalRuns`
 * in all, as the product's workers do.
 */
export async function rawStepRound(options: {
  readonly dir: string;
  readonly durability: Durability;
  readonly mode: RawCommitMode;
  readonly runs: number;
  readonly totalRuns: number;
  readonly stepsPerRun: number;
  readonly stepEvents: readonly RawEvent[];
}): Promise<RawRoundResult> {
  const db: SqliteDatabase = new Database(join(options.dir, `raw-${options.mode}-${Date.now()}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.durability === 'powerLoss' ? 'FULL' : 'NORMAL'}`);
  db.exec(SCHEMA);
  const insert: Statement = db.prepare(
    'INSERT INTO events (stream_name, revision, event_id, event_type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  let transactions = 0;
  let eventIds = 0;
  const writeStep = (run: number, revisions: { run: number; audit: number }) => {
    for (const event of options.stepEvents) {
      const stream = event.audit ? `audit-bench-${run}` : `run-bench-${run}`;
      const revision = event.audit ? revisions.audit++ : revisions.run++;
      insert.run(stream, revision, `e${eventIds++}`, event.type, event.data, event.metadata, Date.now());
      if (options.mode === 'separateCommits') transactions += 1;
    }
  };

  let pending: Array<{ run: number; revisions: { run: number; audit: number }; done: () => void }> = [];
  let flushScheduled = false;
  const flush = () => {
    flushScheduled = false;
    const batch = pending;
    pending = [];
    begin.run();
    for (const op of batch) writeStep(op.run, op.revisions);
    commit.run();
    transactions += 1;
    for (const op of batch) op.done();
  };
  const recordStep = (run: number, revisions: { run: number; audit: number }): Promise<void> => {
    if (options.mode === 'separateCommits') {
      // Autocommit: each INSERT is its own transaction; yield so the runs interleave as the product's do.
      writeStep(run, revisions);
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((done) => {
      pending.push({ run, revisions, done });
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });
  };

  const latencies = new Latencies();
  let nextRun = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: options.runs }, async () => {
      for (let run = nextRun++; run < options.totalRuns; run = nextRun++) {
        const revisions = { run: 0, audit: 0 };
        for (let step = 0; step < options.stepsPerRun; step++) {
          const stepStarted = process.hrtime.bigint();
          await recordStep(run, revisions);
          latencies.add(Number(process.hrtime.bigint() - stepStarted) / 1e6);
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return {
    stepsPerSecond: (options.totalRuns * options.stepsPerRun) / seconds,
    p50Ms: latencies.percentile(50),
    p99Ms: latencies.percentile(99),
    transactions,
  };
}
