import type { AgentToolSource } from '@agent-ledger/client';

/**
 * Where a tool's effect came from, as `agents list` prints it: `code` (the
 * tool's code declares it); for an MCP server's tool, `mcp <server>;` then
 * `declared`, `default` (nothing declared: NON_IDEMPOTENT_WRITE) or `hints
 * (trusted)`, and for a conflict both effects and which one won, e.g.
 * `mcp fs; declared READ_ONLY, hints IDEMPOTENT_WRITE (conflict: hints win)`.
 * `-` for a name no tool is registered under (or a service too old to say).
 */
export function toolSourceText(source: AgentToolSource | null | undefined): string {
  if (source === null || source === undefined) return '-';
  if (source.kind === 'code') return 'code';
  const server = `mcp ${source.server};`;
  if (source.conflict) {
    const winner = source.trusted ? 'trusted hints win' : source.effectSource === 'hint' ? 'hints win' : 'declaration wins';
    return `${server} declared ${source.declared ?? '-'}, hints ${source.hinted ?? '-'} (conflict: ${winner})`;
  }
  if (source.effectSource === 'hint') return `${server} hints${source.trusted ? ' (trusted)' : ''}`;
  return `${server} ${source.effectSource}`;
}
