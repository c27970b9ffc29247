import type { McpServerBinding } from '../mcp/mcp-server-binding';
import type { AgentDefinition } from './agent-definition';

/** The agents configuration file: `{ agents: [...], mcpServers?: [...] }`, every definition validated and frozen. */
export interface AgentsConfig {
  /** At least one; names unique. */
  readonly agents: readonly AgentDefinition[];
  /** The MCP servers the file binds, their tools offered to its agents. @default [] */
  readonly mcpServers: readonly McpServerBinding[];
}
