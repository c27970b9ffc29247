import type { McpServerBinding } from '@agent-ledger/runtime';
import { startMcpServers } from '@agent-ledger/mcp';
import type { McpServers } from '@agent-ledger/mcp';
import { ownVersion } from '../cli/own-version';

/**
 * Starts (stdio) or connects to (HTTP) the bound MCP servers and checks each
 * binding against what its server offers; `null` without bindings. The
 * service and its workers call it before they create a folder or open a
 * store: a binding that cannot be honoured is refused (`ConfigurationError`,
 * every problem named) and leaves nothing behind.
 */
export async function startServiceMcpServers(bindings: readonly McpServerBinding[]): Promise<McpServers | null> {
  if (bindings.length === 0) return null;
  return startMcpServers(bindings, { clientInfo: { name: 'agent-ledger', version: ownVersion() } });
}
