export { EventStoreDbEventStore } from './eventstoredb-event-store';
export type { EventStoreDbEventStoreOptions, EventStoreDbReconnectOptions } from './eventstoredb-options';
export { DEFAULT_RECONNECT } from './eventstoredb-options';
