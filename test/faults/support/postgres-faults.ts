import { Client } from 'pg';
import type { EventStore } from '@agent-ledger/event-store';
import { PostgresEventStore } from '@agent-ledger/event-store';
import type { StoreFixture } from '@agent-ledger/runtime/testing';
import { eventually } from '@agent-ledger/runtime/testing';
import type { PostgresTestServer } from '../../support/postgres';

/** The `application_name` of the run store's connections (and of a single store holding both). */
export const RUN_STORE_APP = 'agent-ledger-runs';
/** The `application_name` of the audit store's connections. */
export const AUDIT_STORE_APP = 'agent-ledger-audit';

/**
 * A connection string naming its connections: the test tells the stores'
 * server processes apart in `pg_stat_activity` by `application_name`.
 */
export function named(server: PostgresTestServer, applicationName: string, port = server.port): string {
  return `${server.connectionString.replace(`:${server.port}/`, `:${port}/`)}?application_name=${encodeURIComponent(applicationName)}`;
}

/** Runs one statement on a fresh admin connection (not one of the stores'). */
export async function sql<T extends object>(server: PostgresTestServer, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: named(server, 'fault-test-admin') });
  // A cut of every connection (cutConnections, run beside a poll of this kind) may end this one too: its query in flight
  // rejects with the cut, which is all the caller needs; without a listener the same error would also be an unhandled
  // 'error' event that fails whichever test is running.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Cuts the connections of the stores: `pg_terminate_backend` on every server
 * process of the test user except the admin connection itself, or only those
 * of one `application_name`. Queries in flight on them fail (`57P01`), idle
 * pooled connections die, the listening connection too.
 *
 * @returns how many server processes were terminated.
 */
export async function cutConnections(server: PostgresTestServer, applicationName?: string): Promise<number> {
  const rows = await sql<{ n: number }>(
    server,
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE usename = current_user AND pid <> pg_backend_pid() AND ($1::text IS NULL OR application_name = $1)`,
    [applicationName ?? null],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Holds the write lock of a store (the single row of `<schema>.log_head`,
 * which every write transaction locks first) on an admin connection: appends
 * of that store queue behind it, in flight on the server, until the test cuts
 * them or releases the lock.
 */
export class WriteLockHolder {
  private constructor(
    private readonly client: Client,
    private readonly server: PostgresTestServer,
  ) {}

  /** Takes the lock of `schema`'s log (the schema must exist). */
  static async take(server: PostgresTestServer, schema: string): Promise<WriteLockHolder> {
    const client = new Client({ connectionString: named(server, 'fault-test-lock') });
    client.on('error', () => undefined); // a cut may end the holder too: release() then finds the connection gone
    await client.connect();
    await client.query('BEGIN');
    await client.query(`SELECT last_position FROM ${schema}.log_head WHERE singleton = 1 FOR UPDATE`);
    return new WriteLockHolder(client, server);
  }

  /** How many server processes of `applicationName` wait for a lock (appends queued behind this one). */
  async waiting(applicationName: string): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.server,
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [applicationName],
    );
    return rows[0]?.n ?? 0;
  }

  /** Waits until `count` appends of `applicationName` are queued behind the lock. */
  async untilWaiting(applicationName: string, count: number, timeoutMs = 20_000): Promise<void> {
    await eventually(async () => ((await this.waiting(applicationName)) >= count ? true : undefined), timeoutMs, `${count} appends of ${applicationName} waiting for the write lock`);
  }

  /** Ends the holding transaction (nothing was written) and the admin connection. */
  async release(): Promise<void> {
    try {
      await this.client.query('ROLLBACK');
    } finally {
      await this.client.end();
    }
  }
}

/** The PostgreSQL stores of a runtime fault test, on the test's private cluster. */
export interface PostgresStores {
  readonly fixture: StoreFixture;
  readonly runStore: PostgresEventStore;
  readonly auditStore: PostgresEventStore;
  close(): Promise<void>;
}

/**
 * The run and audit stores on `server`:
 * - `'one store'`: one adapter holds the run and the audit streams (schema
 *   `agent_ledger`, `auditStore` = `runStore`), as the service keeps them on
 *   EventStoreDB;
 * - `'two schemas'`: the audit streams in a store of their own (schema
 *   `agent_ledger_audit`, its own pool), as the embedded store keeps them in
 *   a file of their own; the audit can then fail alone.
 *
 * Each store's connections carry an `application_name` ({@link RUN_STORE_APP},
 * {@link AUDIT_STORE_APP}), so a test can cut one store's connections only;
 * `port` routes them through a proxy.
 * The schemas are created before this returns.
 */
export async function startPostgresStores(
  server: PostgresTestServer,
  layout: 'one store' | 'two schemas',
  options: { readonly reconnectTimeoutMs?: number; readonly poolSize?: number; readonly queryTimeoutMs?: number; readonly port?: number; readonly groupCommit?: boolean } = {},
): Promise<PostgresStores> {
  const common = {
    groupCommit: options.groupCommit,
    reconnectTimeoutMs: options.reconnectTimeoutMs,
    poolSize: options.poolSize,
    queryTimeoutMs: options.queryTimeoutMs,
    connectionTimeoutMs: 2_000,
    fallbackPollIntervalMs: 200,
  };
  const runStore = await PostgresEventStore.open({ connectionString: named(server, RUN_STORE_APP, options.port), schema: 'agent_ledger', ...common });
  const auditStore =
    layout === 'one store'
      ? runStore
      : await PostgresEventStore.open({ connectionString: named(server, AUDIT_STORE_APP, options.port), schema: 'agent_ledger_audit', ...common });
  const stores: EventStore[] = layout === 'one store' ? [runStore] : [runStore, auditStore];
  const fixture: StoreFixture = {
    kind: 'postgres',
    open: () => ({ runStore, auditStore }),
    breakAuditStore() {
      throw new Error('cut the audit store\'s connections instead (cutConnections, WriteLockHolder)');
    },
    async close() {
      for (const store of stores) await store.close();
    },
  };
  return { fixture, runStore, auditStore, close: () => fixture.close() };
}
