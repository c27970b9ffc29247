/** Test helpers of @agent-ledger/projections, for this repository's tests only: not part of the published package. */
export * from './approval-flows';
export * from './event-builders';
export * from './in-memory-row-store';
export * from './run-event-fixtures';
export * from './synthetic-history';
