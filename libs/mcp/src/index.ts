/**
 * MCP for agent-ledger: the tools of MCP servers, bound by configuration,
 * called through the runtime's fence, approvals and audit like the product's
 * own tools; and the ledger itself as an MCP server.
 */
export {};
export * from './server/index';
