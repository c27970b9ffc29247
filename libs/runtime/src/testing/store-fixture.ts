import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { EventStore } from '@agent-ledger/event-store';
import { EventStoreDbEventStore, PostgresEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import type { EsdbTestServer } from '../../../../test/support/esdb-server';
import { startEsdbTestServer } from '../../../../test/support/esdb-server';
import { startPostgresTestServer } from '../../../../test/support/postgres';

/** The stores a test runs the engine on. */
export type StoreKind = 'sqlite' | 'eventstoredb' | 'postgres';

/** Real stores for one test: files in a temp folder, protocol-level EventStoreDB servers, or a private PostgreSQL cluster. */
export interface StoreFixture {
  readonly kind: StoreKind;
  /** Opens the run and audit stores (a second call opens second connections: another "process"). */
  open(): { runStore: EventStore; auditStore: EventStore };
  /** Makes every audit append fail while run appends work, with the real store; returns the undo. */
  breakAuditStore(): () => void;
  close(): Promise<void>;
}

/** Where a test's audit streams live. */
export type AuditPlacement = 'own store' | 'run store';

/**
 * Starts the stores of a test. By default the audit streams live in a store
 * of their own (a second SQLite file, a second server, a second schema), so
 * the audit can fail alone; with `audit: 'run store'`, in the run store, as
 * the service keeps them by default (a step's records then go in one commit
 * where the store allows it).
 */
export async function startStores(kind: StoreKind, options: { readonly dir?: string; readonly audit?: AuditPlacement } = {}): Promise<StoreFixture> {
  const fixture = await startSeparateStores(kind, options);
  if (options.audit !== 'run store') return fixture;
  return {
    kind,
    open: () => {
      const { runStore, auditStore } = fixture.open();
      void auditStore.close();
      return { runStore, auditStore: runStore };
    },
    breakAuditStore() {
      throw new Error('breakAuditStore needs the audit in a store of its own: the audit here is in the run store');
    },
    close: () => fixture.close(),
  };
}

async function startSeparateStores(kind: StoreKind, options: { readonly dir?: string }): Promise<StoreFixture> {
  const opened: EventStore[] = [];
  const track = <S extends EventStore>(store: S): S => {
    opened.push(store);
    return store;
  };
  const closeAll = async () => {
    for (const store of opened.splice(0)) await store.close();
  };
  if (kind === 'sqlite') {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'agent-ledger-runtime-'));
    const auditPath = join(dir, 'audit.sqlite');
    const locks: Database.Database[] = [];
    return {
      kind,
      open: () => ({
        runStore: track(SqliteEventStore.open({ path: join(dir, 'agent-ledger.sqlite'), busyTimeoutMs: 2000, maxPollIntervalMs: 20 })),
        auditStore: track(SqliteEventStore.open({ path: auditPath, busyTimeoutMs: 50, maxPollIntervalMs: 20 })),
      }),
      breakAuditStore() {
        // Another connection holds the audit database's write lock: appends time out as SQLITE_BUSY.
        const connection = new Database(auditPath);
        connection.exec('BEGIN EXCLUSIVE');
        locks.push(connection);
        return () => {
          if (!connection.open) return;
          connection.exec('ROLLBACK');
          connection.close();
        };
      },
      async close() {
        for (const connection of locks) if (connection.open) connection.close();
        await closeAll();
        if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (kind === 'postgres') {
    const server = await startPostgresTestServer();
    return {
      kind,
      open: () => ({
        runStore: track(PostgresEventStore.connect({ connectionString: server.connectionString, schema: 'agent_ledger' })),
        auditStore: track(PostgresEventStore.connect({ connectionString: server.connectionString, schema: 'agent_ledger_audit' })),
      }),
      breakAuditStore() {
        throw new Error('breakAuditStore is not available on PostgreSQL (it is synchronous): see test/faults/postgres-outage.int-spec.ts for audit faults');
      },
      async close() {
        await closeAll();
        await server.stop();
      },
    };
  }
  const servers: EsdbTestServer[] = [await startEsdbTestServer(), await startEsdbTestServer()];
  const [runServer, auditServer] = servers as [EsdbTestServer, EsdbTestServer];
  return {
    kind,
    open: () => ({
      runStore: track(EventStoreDbEventStore.connect({ connectionString: runServer.connectionString })),
      auditStore: track(EventStoreDbEventStore.connect({ connectionString: auditServer.connectionString })),
    }),
    breakAuditStore() {
      auditServer.failNextAppends(100_000);
      return () => auditServer.clearFaults();
    },
    async close() {
      await closeAll();
      for (const server of servers) await server.stop();
    },
  };
}
