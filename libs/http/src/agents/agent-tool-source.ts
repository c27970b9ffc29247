import type { AgentToolSource, CodeToolSource } from '@agent-ledger/client';
import type { CatalogTool } from '@agent-ledger/runtime';

export type { AgentToolSource, CodeToolSource, McpToolSource } from '@agent-ledger/client';

const CODE: CodeToolSource = Object.freeze({ kind: 'code' });

/** The source of a registered tool (from its origin: none known is code); null for a name no tool is registered under. */
export function agentToolSourceOf(registered: CatalogTool | undefined): AgentToolSource | null {
  if (registered === undefined) return null;
  const origin = registered.origin;
  if (origin?.kind !== 'mcp') return CODE;
  const { server, tool, source, declared, hinted, trusted, conflict } = origin;
  return { kind: 'mcp', server, tool, effectSource: source, declared, hinted, trusted, conflict };
}
