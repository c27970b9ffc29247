import type { AgentToolSource } from '@agent-ledger/client';

/** How the console shows where a tool's effect was declared: a short text, and the whole story for a tooltip. */
export interface ToolSourceLabel {
  readonly text: string;
  readonly title: string;
  readonly conflict: boolean;
}

/**
 * The label of an MCP server's tool (`mcp fs · declared`, `mcp fs · hints ·
 * conflict`); null for a tool whose code declares its effect (the console
 * says nothing more of those), or an unknown source.
 */
export function toolSourceLabel(source: AgentToolSource | null | undefined): ToolSourceLabel | null {
  if (source === null || source === undefined || source.kind !== 'mcp') return null;
  const from = source.effectSource === 'hint' ? 'hints' : source.effectSource;
  const declared = source.declared === null ? 'nothing declared' : `declared ${source.declared}`;
  const hinted = source.hinted === null ? 'no hints' : `hints ${source.hinted}`;
  const title = `MCP server ${source.server}, tool ${source.tool}: ${declared}, ${hinted} (${source.trusted ? 'trusted' : 'untrusted'}); the effect comes from ${
    source.effectSource === 'default' ? 'the default (nothing declared)' : source.effectSource === 'hint' ? 'the hints' : 'the declaration'
  }${source.conflict ? '; the declaration and the hints conflict: each step records it' : ''}`;
  return { text: `mcp ${source.server} · ${from}${source.conflict ? ' · conflict' : ''}`, title, conflict: source.conflict };
}
