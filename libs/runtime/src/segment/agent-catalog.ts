import type { AgentDefinition } from '../agents/agent-definition';
import type { ModelProvider } from '../models/model-provider';

/** An agent ready to run: its definition and the provider of its model. */
export interface CatalogAgent {
  readonly definition: AgentDefinition;
  readonly provider: ModelProvider;
}

/** What the execution engine needs to know of the configured agents. */
export interface AgentCatalog {
  get(name: string): CatalogAgent | undefined;
  names(): readonly string[];
}

/** Injection token of the {@link AgentCatalog}. */
export const AGENT_CATALOG = Symbol('agent-ledger:AgentCatalog');

/** An agent catalog over a fixed list. */
export function agentCatalogOf(agents: readonly CatalogAgent[]): AgentCatalog {
  const byName = new Map(agents.map((agent) => [agent.definition.name, agent]));
  return { get: (name) => byName.get(name), names: () => [...byName.keys()] };
}
