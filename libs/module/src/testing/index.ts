/** Test helpers of @agent-ledger/module, for this repository's tests only: not part of the published package. */
export * from './mixed-workload';
export * from './followed-read-models';
