/**
 * MCP for agent-ledger: the tools of MCP servers, bound by configuration,
 * called through the runtime's fence, approvals and audit like the product's
 * own tools; and the ledger itself as an MCP server.
 */
export {};
export * from './server/index';
export { startMcpServers } from './mcp-servers';
export type { McpServers, McpServersOptions } from './mcp-servers';
export type { McpServerState } from './mcp-connection';
export type { McpToolRegistration } from './mcp-tool-class';
export type { McpLogger } from './mcp-logger';
export { STDERR_LINES_PER_SECOND } from './stderr-lines';
export {
  MCP_ERROR_MESSAGE_LIMIT,
  McpConnectionError,
  McpHttpError,
  McpOutcomeUnknownError,
  McpTimeoutError,
  McpToolChangedError,
  McpToolError,
} from './mcp-errors';
export type { McpConnectionErrorCode, McpToolErrorCode } from './mcp-errors';
export { McpToolsModule } from './mcp-tools.module';
export type { McpCounter, McpCounterSink } from './mcp-counters';
