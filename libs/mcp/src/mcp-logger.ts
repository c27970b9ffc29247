import { Logger } from '@nestjs/common';

/** Where the MCP client writes what it has to say: Nest's `Logger('Mcp')` unless a host gives another. */
export interface McpLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The default {@link McpLogger}: Nest's logger, context `Mcp`. */
export function nestMcpLogger(): McpLogger {
  const logger = new Logger('Mcp');
  return { log: (message) => logger.log(message), warn: (message) => logger.warn(message), error: (message) => logger.error(message) };
}
