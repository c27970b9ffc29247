export { PostgresEventStore } from './postgres-event-store';
export type { PostgresEventStoreStats } from './postgres-event-store';
export * from './postgres-options';
export { POSTGRES_SCHEMA_VERSION } from './postgres-schema';
