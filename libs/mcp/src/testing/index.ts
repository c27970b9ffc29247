/** Test helpers of @agent-ledger/mcp, for this repository's tests only: not part of the published package. */
export * from './mcp-test-support';
