export type { LedgerOperations } from './ledger-operations';
export { LedgerOperationError } from './ledger-operation-error';
export type { LedgerErrorBody } from './ledger-operation-error';
export { LEDGER_MCP_SERVER_NAME } from './ledger-mcp-server-options';
export type { LedgerMcpServerOptions } from './ledger-mcp-server-options';
export { serveLedgerMcpStdio } from './serve-stdio';
export type { LedgerMcpStdioOptions } from './serve-stdio';
export { handleLedgerMcpHttpRequest } from './handle-http-request';
export type { LedgerMcpHttpRequest } from './handle-http-request';
