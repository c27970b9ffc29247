/** Test helpers of @agent-ledger/domain, for this repository's tests only: not part of the published package. */
export * from './run-history';
export * from './decider-specification';
export * from './run-decider-specification';
