import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { StoreFailureError } from '../port/errors/store-failure.error';

/**
 * Version of the schema below, kept in `<schema>.schema_version`.
 * 1: the log, the streams, the log head and the store's identity.
 */
export const POSTGRES_SCHEMA_VERSION = 1;

/**
 * The PostgreSQL store's schema, in the schema `s` (documented in
 * docs/event-store.md, "PostgreSQL adapter").
 *
 * - `events`: the log; `position` is the global order of `$all`, assigned from
 *   `log_head` inside the append's transaction.
 * - `log_head`: one row, the last position assigned. Every write transaction
 *   locks it first (`SELECT ... FOR UPDATE`), so writes are serialised and
 *   positions become visible in increasing order, without gaps.
 * - `streams`: one row per stream (last revision, soft-delete point, tombstone).
 * - `store_identity`: one row, written with the schema.
 */
function schemaSql(s: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${s}.events (
  position     bigint      PRIMARY KEY,
  stream_name  text        NOT NULL,
  revision     bigint      NOT NULL,
  event_id     uuid        NOT NULL,
  event_type   text        NOT NULL,
  data         text        NOT NULL,
  metadata     text        NOT NULL,
  created_at   bigint      NOT NULL,
  UNIQUE (stream_name, revision)
);
CREATE INDEX IF NOT EXISTS events_stream_event_id ON ${s}.events (stream_name, event_id, revision);
CREATE TABLE IF NOT EXISTS ${s}.streams (
  stream_name      text    PRIMARY KEY,
  last_revision    bigint  NOT NULL,
  truncate_before  bigint  NOT NULL DEFAULT 0,
  tombstoned       boolean NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS ${s}.log_head (
  singleton      integer PRIMARY KEY CHECK (singleton = 1),
  last_position  bigint  NOT NULL
);
INSERT INTO ${s}.log_head (singleton, last_position) VALUES (1, 0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS ${s}.store_identity (
  singleton    integer PRIMARY KEY CHECK (singleton = 1),
  id           uuid    NOT NULL,
  created_at   bigint  NOT NULL
);
`;
}

/**
 * Creates or checks the schema in one transaction, under a transaction-level
 * advisory lock on the schema's name, so that processes starting at once on a
 * new database do not race (and agree on one identity).
 * @throws StoreFailureError when the database holds a newer schema version.
 */
export async function migrate(client: PoolClient, schema: string, now: () => number): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agent-ledger:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_version (singleton integer PRIMARY KEY CHECK (singleton = 1), version integer NOT NULL)`);
    const found = await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`);
    const version = found.rows[0]?.version ?? 0;
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new StoreFailureError(undefined, `the schema "${schema}" has version ${version}, this build knows up to ${POSTGRES_SCHEMA_VERSION}`);
    }
    if (version < POSTGRES_SCHEMA_VERSION) {
      await client.query(schemaSql(schema));
      await client.query(`INSERT INTO ${schema}.store_identity (singleton, id, created_at) VALUES (1, $1, $2) ON CONFLICT DO NOTHING`, [
        randomUUID(),
        now(),
      ]);
      await client.query(
        `INSERT INTO ${schema}.schema_version (singleton, version) VALUES (1, $1) ON CONFLICT (singleton) DO UPDATE SET version = excluded.version`,
        [POSTGRES_SCHEMA_VERSION],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined); // the connection may be gone: the server rolls back then
    throw error;
  }
}
