export { EventStoreDbEventStore, STORE_IDENTITY_STREAM } from './eventstoredb-event-store';
export type {
  EventStoreDbEventStoreOptions,
  EventStoreDbReconnectOptions,
  ResolvedReconnectOptions,
} from './eventstoredb-options';
export { DEFAULT_RECONNECT } from './eventstoredb-options';
