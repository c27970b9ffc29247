/**
 * Reading a product round's stored history, on either store: counting the
 * settled runs while the round runs, and checking and measuring the history
 * afterwards (every run completed with all its steps; step latencies; the
 * events of one tool step, with their stored sizes, for the baseline).
 */
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { Latencies, median } from '../../support/stats';
import type { RawEvent } from './raw-baseline';

const TERMINAL = "('RunCompleted', 'RunFailed', 'RunCancelled')";

/** What a round's history tells. */
export interface StepHistoryFigures {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly eventsPerStep: number;
  readonly stepEvents: readonly RawEvent[];
}

/** A read-only view of the round's event log. */
export interface StepHistory {
  /** Runs settled so far (counted incrementally: a full scan every few ms would cost more than the product's work). */
  settledRuns(): Promise<number>;
  /** Checks that every run completed with its steps, and measures the history. @throws when a run or a step is missing. */
  analyse(totalRuns: number, stepsPerRun: number): Promise<StepHistoryFigures>;
  close(): Promise<void>;
}

/** The rows the analysis reads, whatever the store. */
interface HistoryQueries {
  /** Runs settled after position `after`, the last such position, and the log's head when read (one snapshot). */
  settledSince(after: number): Promise<{ n: number; last: number | null; head: number }>;
  outcomes(): Promise<Array<{ type: string; n: number }>>;
  count(type: string | null): Promise<number>;
  audits(): Promise<Array<{ stream: string; data: string; at: number }>>;
  samples(type: string, toolOnly: boolean): Promise<Array<{ data: string; metadata: string }>>;
  close(): Promise<void>;
}

/** The history of the embedded store at `path`. */
export function sqliteStepHistory(path: string): StepHistory {
  const db = new Database(path, { readonly: true });
  const settledSince = db.prepare(`SELECT count(*) AS n, max(position) AS last FROM events WHERE position > ? AND event_type IN ${TERMINAL}`);
  const maxPosition = db.prepare('SELECT max(position) AS last FROM events');
  return stepHistory({
    settledSince: async (after) => {
      // Two statements: the head first (a position committed after it cannot be counted as seen).
      const head = (maxPosition.get() as { last: number | null }).last ?? 0;
      return { ...(settledSince.get(after) as { n: number; last: number | null }), head };
    },
    outcomes: async () => db.prepare(`SELECT event_type AS type, count(*) AS n FROM events WHERE event_type IN ${TERMINAL} GROUP BY event_type`).all() as Array<{ type: string; n: number }>,
    count: async (type) =>
      (type === null ? (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }) : (db.prepare('SELECT count(*) AS n FROM events WHERE event_type = ?').get(type) as { n: number })).n,
    audits: async () =>
      db.prepare("SELECT stream_name AS stream, data, created_at AS at FROM events WHERE event_type = 'AuditRecorded' ORDER BY position").all() as Array<{ stream: string; data: string; at: number }>,
    samples: async (type, toolOnly) =>
      db.prepare(`SELECT data, metadata FROM events WHERE event_type = ? ${toolOnly ? "AND json_extract(data, '$.kind') = 'tool'" : ''} LIMIT 200`).all(type) as Array<{ data: string; metadata: string }>,
    close: async () => void db.close(),
  });
}

/** The history of a PostgreSQL store's schema, on a connection of its own. */
export async function postgresStepHistory(connectionString: string, schema: string): Promise<StepHistory> {
  const client = new Client({ connectionString });
  await client.connect();
  const rows = async <T extends object>(text: string, values: unknown[] = []): Promise<T[]> => (await client.query<T>(text, values)).rows;
  const s = schema;
  return stepHistory({
    settledSince: async (after) => {
      // One statement, one snapshot: the head and the runs settled up to it.
      const [row] = await rows<{ n: number; last: string | null; head: string }>(
        `SELECT count(*)::int AS n, max(position) AS last, (SELECT last_position FROM ${s}.log_head) AS head FROM ${s}.events WHERE position > $1 AND event_type IN ${TERMINAL}`,
        [after],
      );
      return { n: row?.n ?? 0, last: row?.last === null || row?.last === undefined ? null : Number(row.last), head: Number(row?.head ?? 0) };
    },
    outcomes: async () => rows<{ type: string; n: number }>(`SELECT event_type AS type, count(*)::int AS n FROM ${s}.events WHERE event_type IN ${TERMINAL} GROUP BY event_type`),
    count: async (type) =>
      (type === null
        ? await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${s}.events`)
        : await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${s}.events WHERE event_type = $1`, [type]))[0]?.n ?? 0,
    audits: async () =>
      (await rows<{ stream: string; data: string; at: string }>(`SELECT stream_name AS stream, data, created_at AS at FROM ${s}.events WHERE event_type = 'AuditRecorded' ORDER BY position`)).map((r) => ({ ...r, at: Number(r.at) })),
    samples: async (type, toolOnly) =>
      rows<{ data: string; metadata: string }>(`SELECT data, metadata FROM ${s}.events WHERE event_type = $1 ${toolOnly ? "AND data::json->>'kind' = 'tool'" : ''} LIMIT 200`, [type]),
    close: () => client.end(),
  });
}

function stepHistory(q: HistoryQueries): StepHistory {
  let settled = 0;
  let seenUpTo = 0;
  return {
    settledRuns: async () => {
      // Only positions committed before this read: a later, lower position cannot appear (positions commit in order).
      const row = await q.settledSince(seenUpTo);
      settled += row.n;
      seenUpTo = Math.max(row.head, row.last ?? 0);
      return settled;
    },
    analyse: async (totalRuns, stepsPerRun) => {
      const outcomes = await q.outcomes();
      const completed = outcomes.find((o) => o.type === 'RunCompleted')?.n ?? 0;
      if (completed !== totalRuns) throw new Error(`${completed} of ${totalRuns} runs completed: ${JSON.stringify(outcomes)}`);
      const toolSteps = await q.count('ToolExecuted');
      if (toolSteps !== totalRuns * stepsPerRun) throw new Error(`${toolSteps} tool steps recorded, ${totalRuns * stepsPerRun} expected`);
      const events = await q.count(null);

      // Step latency: from one step's audit to the next's in a run (the first from the model round's audit): what a run waits per step.
      const latencies = new Latencies();
      const last = new Map<string, number>();
      for (const a of await q.audits()) {
        const kind = (JSON.parse(a.data) as { kind: string }).kind;
        const previous = last.get(a.stream);
        if (kind === 'tool' && previous !== undefined) latencies.add(a.at - previous);
        last.set(a.stream, a.at);
      }

      // The events of a tool step, with the stored sizes (the median of each type).
      const sample = async (type: string, toolOnly: boolean, audit: boolean): Promise<RawEvent> => {
        const found = await q.samples(type, toolOnly);
        const m = median(found.map((r) => r.data.length + r.metadata.length));
        const row = found.find((r) => r.data.length + r.metadata.length >= m) ?? found[0];
        if (row === undefined) throw new Error(`no ${type} event to sample`);
        return { type, data: row.data, metadata: row.metadata, audit };
      };
      const stepEvents = [await sample('StepStarted', true, false), await sample('ToolExecuted', false, false), await sample('AuditRecorded', true, true)];
      return { p50Ms: latencies.percentile(50), p99Ms: latencies.percentile(99), eventsPerStep: events / (totalRuns * stepsPerRun), stepEvents };
    },
    close: () => q.close(),
  };
}
