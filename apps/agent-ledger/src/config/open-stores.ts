import type { EventStore } from '@agent-ledger/event-store';
import { createEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import type { ServiceConfig } from './service-config';

/** The service's stores, opened as the service opens them. */
export interface OpenStores {
  readonly runStore: EventStore;
  /** The audit streams' store: the run store unless `AUDIT_STORE_PATH` is set. */
  readonly auditStore: EventStore;
  close(): Promise<void>;
}

/** Opens the stores the configuration names. */
export function openStores(config: ServiceConfig): OpenStores {
  // The service (src/main.ts), its worker and its CLI all open them here: EventStoreDB or PostgreSQL when the configuration names one, else the embedded file.
  const { postgres } = config;
  const runStore = createEventStore({
    env: { EVENTSTORE_CONNECTION_STRING: config.eventStoreConnectionString ?? '', POSTGRES_CONNECTION_STRING: postgres?.connectionString ?? '' },
    sqlite: config.eventStorePath === null ? undefined : { path: config.eventStorePath, busyTimeoutMs: config.storeBusyTimeoutMs },
    postgres: postgres === null ? undefined : { schema: postgres.schema, poolSize: postgres.poolSize, ...(postgres.tls === null ? {} : { tls: postgres.tls }) },
  });
  const auditStore = config.auditStorePath === null ? runStore : SqliteEventStore.open({ path: config.auditStorePath, busyTimeoutMs: config.storeBusyTimeoutMs });
  return {
    runStore,
    auditStore,
    async close() {
      await runStore.close();
      if (auditStore !== runStore) await auditStore.close();
    },
  };
}
