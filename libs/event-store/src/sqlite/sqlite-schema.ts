import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { StoreFailureError } from '../port/errors/store-failure.error';

/**
 * Version of the schema below, kept in `PRAGMA user_version`. 1: the log and
 * the streams; 2: the store's identity (`store_identity`), added to a version-1
 * file when this version first opens it writable.
 */
export const SQLITE_SCHEMA_VERSION = 2;

/**
 * The embedded store's schema (documented in docs/event-store.md).
 *
 * - `events`: the log. `position` (INTEGER PRIMARY KEY AUTOINCREMENT) is the
 *   global order of `$all`: assigned inside the write transaction, and SQLite
 *   allows one writer at a time, so positions are committed in increasing order
 *   and a reader that has seen position p has seen every position below p.
 *   AUTOINCREMENT guarantees a position is never reused.
 * - `streams`: one row per stream: its last revision (the expected-revision
 *   check reads it), the soft-delete point and the tombstone flag.
 * - `store_identity`: one row, the store's identity (`EventStore.storeIdentity`),
 *   written with the schema, in the same transaction.
 */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position     INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_name  TEXT    NOT NULL,
  revision     INTEGER NOT NULL,
  event_id     TEXT    NOT NULL,
  event_type   TEXT    NOT NULL,
  data         TEXT    NOT NULL,
  metadata     TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  UNIQUE (stream_name, revision)
);
CREATE INDEX IF NOT EXISTS events_stream_event_id ON events (stream_name, event_id, revision);
CREATE TABLE IF NOT EXISTS streams (
  stream_name      TEXT    PRIMARY KEY,
  last_revision    INTEGER NOT NULL,
  truncate_before  INTEGER NOT NULL DEFAULT 0,
  tombstoned       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_identity (
  singleton    INTEGER PRIMARY KEY CHECK (singleton = 1),
  id           TEXT    NOT NULL,
  created_at   INTEGER NOT NULL
);
`;

/**
 * Creates or checks the schema, inside an IMMEDIATE transaction so that
 * processes opening the same new file at once do not race (and agree on one
 * identity: the first creates it, the others find the schema current).
 * @throws StoreFailureError when the file holds a newer schema version.
 */
export function migrate(db: Database, now: () => number): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_SCHEMA_VERSION) {
      throw new StoreFailureError(undefined, `the file has schema version ${version}, this build knows up to ${SQLITE_SCHEMA_VERSION}`);
    }
    if (version < SQLITE_SCHEMA_VERSION) {
      db.exec(SQLITE_SCHEMA);
      db.prepare('INSERT OR IGNORE INTO store_identity (singleton, id, created_at) VALUES (1, ?, ?)').run(randomUUID(), now());
      db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
