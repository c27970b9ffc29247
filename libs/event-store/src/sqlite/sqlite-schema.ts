import type { Database } from 'better-sqlite3';
import { StoreFailureError } from '../port/errors/store-failure.error';

/** Version of the schema below, kept in `PRAGMA user_version`. */
export const SQLITE_SCHEMA_VERSION = 1;

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
`;

/**
 * Creates or checks the schema, inside an IMMEDIATE transaction so that
 * processes opening the same new file at once do not race.
 * @throws StoreFailureError when the file holds a newer schema version.
 */
export function migrate(db: Database): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_SCHEMA_VERSION) {
      throw new StoreFailureError(undefined, `the file has schema version ${version}, this build knows up to ${SQLITE_SCHEMA_VERSION}`);
    }
    if (version < SQLITE_SCHEMA_VERSION) {
      db.exec(SQLITE_SCHEMA);
      db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
