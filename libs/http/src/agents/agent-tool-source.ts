import type { ExternalToolEffectSource, ToolEffect } from '@agent-ledger/domain';
import type { CatalogTool } from '@agent-ledger/runtime';

/** A tool whose code (the product's or a plugin's) declares its effect. */
export interface CodeToolSource {
  readonly kind: 'code';
}

/** A tool of an MCP server, whose effect was resolved at start from its binding's declaration and the server's hints. */
export interface McpToolSource {
  readonly kind: 'mcp';
  /** The binding's server name. */
  readonly server: string;
  /** The tool's name on that server. */
  readonly tool: string;
  /** Where the effect came from: the declaration, the hints (stricter, or trusted), or the default (nothing declared). */
  readonly effectSource: ExternalToolEffectSource;
  /** What the binding declared; null when it declared nothing. */
  readonly declared: ToolEffect | null;
  /** The effect the server's hints give; null when it gave none. */
  readonly hinted: ToolEffect | null;
  /** Whether the binding trusts the server's hints. */
  readonly trusted: boolean;
  /** Whether the declaration and the hints disagree (each step of the tool then records `ToolEffectConflictRecorded`). */
  readonly conflict: boolean;
}

/** Where a tool comes from, and so where its effect was declared (`GET /agents`, `/openapi.json`'s agents). */
export type AgentToolSource = CodeToolSource | McpToolSource;

const CODE: CodeToolSource = Object.freeze({ kind: 'code' });

/** The source of a registered tool (from its origin: none known is code); null for a name no tool is registered under. */
export function agentToolSourceOf(registered: CatalogTool | undefined): AgentToolSource | null {
  if (registered === undefined) return null;
  const origin = registered.origin;
  if (origin?.kind !== 'mcp') return CODE;
  const { server, tool, source, declared, hinted, trusted, conflict } = origin;
  return { kind: 'mcp', server, tool, effectSource: source, declared, hinted, trusted, conflict };
}
