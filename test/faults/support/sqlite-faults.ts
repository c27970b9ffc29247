import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision, isEventStoreError, SqliteEventStore } from '@agent-ledger/event-store';

/**
 * The connection of an open embedded store: fault injection only. SQLite's
 * page cap (`max_page_count`) and `query_only` are settings of a connection,
 * so a fault meant for the runtime's store must be set on the runtime's own
 * connection (the adapter's own test does the same).
 */
export function connectionOf(store: EventStore): Database.Database {
  if (!(store instanceof SqliteEventStore)) throw new Error('not an embedded (SQLite) store');
  return (store as unknown as { db: Database.Database }).db;
}

/** A page cap on a store's connection: the file may not grow past `pages` pages. */
export interface PageCap {
  /** The cap, in pages. */
  readonly pages: number;
  /** The page size, in bytes. */
  readonly pageSize: number;
  /** Events written by {@link capStore} to use up the room left inside the file (stream category `faultfill`). */
  readonly fillerEvents: number;
  /** Space returns: the cap goes back to what it was. */
  lift(): void;
}

/** The category of the filler streams: neither the runtime, nor the projections, nor the saga read it. */
export const FILLER_CATEGORY = 'faultfill';

/**
 * Makes `store` full, as a full disk would: the file may not grow any more
 * (`PRAGMA max_page_count` = its size now + `roomPages`), so any write that
 * needs a new page fails with `SQLITE_FULL`.
 *
 * A file has room inside its pages: small events may still fit. With
 * `fill: true` that room is used up first, by appending filler events of
 * decreasing size until even a 1-byte event fails, so that after it **every**
 * append of the runtime fails (its events are larger than the smallest filler).
 */
export async function capStore(store: EventStore, options: { readonly roomPages?: number; readonly fill?: boolean } = {}): Promise<PageCap> {
  const db = connectionOf(store);
  const original = db.pragma('max_page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = (db.pragma('page_count', { simple: true }) as number) + (options.roomPages ?? 0);
  db.pragma(`max_page_count = ${pages}`);
  let fillerEvents = 0;
  if (options.fill === true) {
    const stream = `${FILLER_CATEGORY}-${randomUUID()}`;
    for (const size of [16_384, 4_096, 1_024, 256, 64, 16, 1]) {
      for (let i = 0; i < 100_000; i++) {
        try {
          await store.append(stream, [{ id: randomUUID(), type: 'Filler', data: { p: 'x'.repeat(size) } }], { expectedRevision: ExpectedRevision.ANY });
          fillerEvents++;
        } catch (error) {
          if (isEventStoreError(error, 'STORE_FULL')) break;
          throw error;
        }
      }
    }
  }
  return {
    pages,
    pageSize,
    fillerEvents,
    lift: () => void db.pragma(`max_page_count = ${original}`),
  };
}

/**
 * Turns the store's connection read-only (`PRAGMA query_only`) or back: every
 * write then fails with `SQLITE_READONLY`, what SQLite answers for a file it
 * could only open read-only. Used where the file itself cannot be made
 * read-only under an open connection (see test/faults/README.md).
 */
export function setQueryOnly(store: EventStore, on: boolean): void {
  connectionOf(store).pragma(`query_only = ${on ? 'ON' : 'OFF'}`);
}

/** What {@link inspectSqliteFile} found. */
export interface StoreInspection {
  /** `PRAGMA integrity_check`: `['ok']` for a sound file. */
  readonly integrity: readonly string[];
  readonly streams: number;
  readonly events: number;
  /** Everything that is not as the schema promises; empty for a sound store. */
  readonly problems: readonly string[];
}

/**
 * Checks an embedded store's file from a connection of its own (read-only):
 * SQLite's integrity check, then the store's own promises: every stream's
 * events are exactly revisions `0 .. last_revision` (no gap, no partial
 * append), in increasing positions, every event belongs to a stream row, and
 * every `data` and `metadata` is a JSON object.
 */
export function inspectSqliteFile(path: string): StoreInspection {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    const problems: string[] = [];
    const streams = db.prepare('SELECT stream_name, last_revision FROM streams ORDER BY stream_name').all() as Array<{ stream_name: string; last_revision: number }>;
    const rowsOf = db.prepare('SELECT position, revision, data, metadata FROM events WHERE stream_name = ? ORDER BY revision');
    let events = 0;
    for (const stream of streams) {
      const rows = rowsOf.all(stream.stream_name) as Array<{ position: number; revision: number; data: string; metadata: string }>;
      events += rows.length;
      if (rows.length !== stream.last_revision + 1) problems.push(`${stream.stream_name}: ${rows.length} events, last revision ${stream.last_revision}`);
      rows.forEach((row, i) => {
        if (row.revision !== i) problems.push(`${stream.stream_name}: revision ${row.revision} at index ${i}`);
        if (i > 0 && row.position <= (rows[i - 1]?.position ?? 0)) problems.push(`${stream.stream_name}: position ${row.position} out of order`);
        for (const [field, json] of [
          ['data', row.data],
          ['metadata', row.metadata],
        ] as const) {
          try {
            const value: unknown = JSON.parse(json);
            if (typeof value !== 'object' || value === null || Array.isArray(value)) problems.push(`${stream.stream_name}@${row.revision}: ${field} is not an object`);
          } catch {
            problems.push(`${stream.stream_name}@${row.revision}: ${field} is not JSON`);
          }
        }
      });
    }
    const total = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
    if (total !== events) problems.push(`${total - events} events belong to no stream row`);
    return { integrity, streams: streams.length, events, problems };
  } finally {
    db.close();
  }
}
