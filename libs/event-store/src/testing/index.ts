/** Test helpers of @agent-ledger/event-store, for this repository's tests only: not part of the published package. */
export * from './child-process';
export * from './contract-helpers';
export * from './event-store-contract';
export * from './recording-processor';
