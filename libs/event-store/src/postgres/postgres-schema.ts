import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { StoreFailureError } from '../port/errors/store-failure.error';

/**
 * Version of the schema below, kept in `<schema>.schema_version`.
 * 1: the log, the streams, the log head and the store's identity.
 * 2: the function `append_expected` (a batch of appends at their expected revisions, in one statement).
 * 3: the table `listeners` (the stores listening for notifications), and `append_expected` with the writing
 *    store's listener, notifying only when another store listens. The version 2 function is left in place for
 *    the processes of the previous version still running during an upgrade.
 */
export const POSTGRES_SCHEMA_VERSION = 3;

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
 * - `listeners`: one row per store that LISTENs on the schema's channel (its
 *   id, the listening connection's backend pid). A write notifies only when a
 *   row of another store is there; a store registers under a share lock of
 *   `log_head`, so a write either sees its row or committed before the
 *   registration did (then the store's first read after registering sees it).
 *   Rows of connections that are gone are deleted by the next registration.
 * - `append_expected(...)`: a batch of appends that each expect an exact
 *   revision, in one statement (so one round trip and one commit in
 *   autocommit): it locks the head, and writes only when every stream is at
 *   the revision its append expects (the rules of `decideAppend` for that
 *   case); otherwise it writes nothing and answers null, and the batch is
 *   decided in TypeScript. It answers the head before the batch, then the
 *   first revision written to each part's stream. It notifies the channel
 *   only when a store other than `p_listener` (the writer's) listens.
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
CREATE TABLE IF NOT EXISTS ${s}.listeners (
  id     uuid    PRIMARY KEY,
  pid    integer NOT NULL,
  since  bigint  NOT NULL
);
CREATE OR REPLACE FUNCTION ${s}.append_expected(
  p_streams text[], p_expected bigint[], p_counts integer[],
  p_parts integer[], p_offsets integer[], p_ids uuid[], p_types text[], p_data text[], p_metadata text[],
  p_created_at bigint, p_channel text, p_listener uuid
) RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $append_expected$
DECLARE
  v_head bigint;
  v_firsts bigint[];
BEGIN
  SELECT last_position INTO v_head FROM ${s}.log_head WHERE singleton = 1 FOR UPDATE;
  -- Each statement of a VOLATILE function reads a snapshot taken when it starts: this one sees every batch committed
  -- before the lock was granted. A part's first revision, or null when its stream is not where the part expects it.
  SELECT array_agg(
           CASE
             WHEN st.stream_name IS NULL THEN CASE WHEN q.expected IS NULL THEN 0 END
             WHEN st.tombstoned THEN NULL
             WHEN st.last_revision = coalesce(q.expected, st.truncate_before - 1) THEN st.last_revision + 1
           END ORDER BY q.ord)
    INTO v_firsts
    FROM unnest(p_streams, p_expected) WITH ORDINALITY AS q(stream_name, expected, ord)
    LEFT JOIN ${s}.streams st ON st.stream_name = q.stream_name;
  IF array_position(v_firsts, NULL) IS NOT NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO ${s}.events (position, stream_name, revision, event_id, event_type, data, metadata, created_at)
  SELECT v_head + e.n, p_streams[e.part], v_firsts[e.part] + e.off, e.id, e.type, e.data, e.metadata, p_created_at
    FROM unnest(p_parts, p_offsets, p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS e(part, off, id, type, data, metadata, n);
  INSERT INTO ${s}.streams (stream_name, last_revision, truncate_before, tombstoned)
  SELECT q.stream_name, v_firsts[q.ord] + q.count - 1, 0, false
    FROM unnest(p_streams, p_counts) WITH ORDINALITY AS q(stream_name, count, ord)
  ON CONFLICT (stream_name) DO UPDATE SET last_revision = excluded.last_revision;
  UPDATE ${s}.log_head SET last_position = v_head + cardinality(p_ids) WHERE singleton = 1;
  -- A statement of its own, after the lock: it sees every registration committed before the lock was granted.
  IF EXISTS (SELECT 1 FROM ${s}.listeners WHERE id IS DISTINCT FROM p_listener) THEN
    PERFORM pg_notify(p_channel, (v_head + cardinality(p_ids))::text);
  END IF;
  RETURN v_head || v_firsts;
END
$append_expected$;
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

/**
 * Registers a listening connection in `<schema>.listeners` under `id`, in one
 * transaction that first takes a share lock of `log_head`: a write that holds
 * the lock commits first (a read after this one sees it), a later write sees
 * the row and notifies. Rows of backends that are gone are deleted. Sent by
 * the listening connection itself, after its LISTEN (one round trip).
 */
export function registerListenerSql(schema: string, id: string, now: number): string {
  return `BEGIN;
SELECT 1 FROM ${schema}.log_head WHERE singleton = 1 FOR SHARE;
DELETE FROM ${schema}.listeners WHERE pid NOT IN (SELECT pid FROM pg_stat_activity);
INSERT INTO ${schema}.listeners (id, pid, since) VALUES ('${id}', pg_backend_pid(), ${Math.trunc(now)})
  ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, since = excluded.since;
COMMIT`;
}
