/** Test helpers of @agent-ledger/runtime, for this repository's tests only: not part of the published package. */
export * from './crash-points';
export * from './decision-histories';
export * from './runtime-harness';
export * from './store-fixture';
