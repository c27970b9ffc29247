import type { McpServers } from '@agent-ledger/mcp';

/**
 * `; mcp: fs (stdio, pid 4242, 2 tools), tickets (http, 1 tool; 1 effect conflict)`:
 * the start-up line's note on the MCP servers this process started, or nothing without any.
 */
export function mcpServersNote(mcp: McpServers | null): string {
  if (mcp === null) return '';
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const servers = mcp.states().map((state) => {
    const tools = mcp.tools.filter((registration) => registration.origin.server === state.server);
    const conflicts = tools.filter((registration) => registration.origin.conflict).length;
    const pid = state.pid === null ? '' : `, pid ${state.pid}`;
    return `${state.server} (${state.transport}${pid}, ${count(tools.length, 'tool')}${conflicts === 0 ? '' : `; ${count(conflicts, 'effect conflict')}`})`;
  });
  return servers.length === 0 ? '' : `; mcp: ${servers.join(', ')}`;
}
