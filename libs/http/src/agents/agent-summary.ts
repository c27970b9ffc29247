import type { OnDenial, ToolEffect } from '@agent-ledger/domain';
import type { AgentDefinition, ToolCatalog } from '@agent-ledger/runtime';
import { approvalsOf } from '@agent-ledger/runtime';
import type { AgentToolSource } from './agent-tool-source';
import { agentToolSourceOf } from './agent-tool-source';

/** One of an agent's tools, with its effect and where the effect was declared. */
export interface AgentToolSummary {
  readonly name: string;
  /** From the tool registry (the effect its calls run with); `NON_IDEMPOTENT_WRITE` for a name no tool is registered under, as the runtime treats it. */
  readonly effect: ToolEffect;
  /** Where the tool and its effect come from (its code, or an MCP server's binding); null for a name no tool is registered under. */
  readonly source: AgentToolSource | null;
}

/** What a client may know of a configured agent: never its instructions nor its model provider. */
export interface AgentSummary {
  readonly name: string;
  readonly description: string | null;
  /** Its tools, in the order of its configuration. */
  readonly tools: readonly AgentToolSummary[];
  readonly approvals: {
    /** Write tools that execute without a person's approval. */
    readonly preApproved: readonly string[];
    /** What a denial does. */
    readonly onDenial: OnDenial;
  };
}

/** The body of `GET /agents`. */
export interface AgentsAnswer {
  /** By name. */
  readonly agents: readonly AgentSummary[];
}

/**
 * The summaries of `definitions` a caller may see, sorted by name: every one
 * when `entitled` is null, else those named in it.
 */
export function agentSummaries(definitions: readonly AgentDefinition[], tools: Pick<ToolCatalog, 'effectFor' | 'get'>, entitled: readonly string[] | null): AgentSummary[] {
  return definitions
    .filter((definition) => entitled === null || entitled.includes(definition.name))
    .map((definition) => {
      const approvals = approvalsOf(definition);
      return {
        name: definition.name,
        description: definition.description ?? null,
        tools: definition.tools.map((name) => ({ name, effect: tools.effectFor(name), source: agentToolSourceOf(tools.get(name)) })),
        approvals: { preApproved: [...approvals.preApproved], onDenial: approvals.onDenial },
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
