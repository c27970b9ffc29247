/**
 * The event-store port and its adapters. Import the contract suite from
 * `@agent-ledger/event-store/testing/event-store-contract` (test code only).
 */
export * from './port/errors';
export * from './port/event';
export * from './port/event-filter';
export * from './port/event-store';
export * from './port/consumer-groups';
export * from './port/multi-stream-append';
export * from './port/expected-revision';
export * from './port/json';
export * from './port/position';
export * from './port/read-options';
export * from './port/store-identity';
export * from './port/subscription';
export * from './stream-name';
export { MAX_APPEND_SIZE, MAX_EVENT_TYPE_LENGTH, DEFAULT_BATCH_SIZE } from './validation/limits';
export { isUuid } from './validation/validate-append';
export { serialiseEventData } from './validation/serialised-data';
export * from './in-memory/in-memory-event-store';
export * from './sqlite/sqlite-event-store';
export * from './sqlite/sqlite-options';
export { enableWal } from './sqlite/enable-wal';
export { SQLITE_SCHEMA_VERSION } from './sqlite/sqlite-schema';
export * from './eventstoredb';
export * from './create-event-store';
export * from './event-id';
export { abortableDelay, pullBatches, yieldToEventLoop } from './core/pull-batches';
export * from './processing';
export * from './postgres';
