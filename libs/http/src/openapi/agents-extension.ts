import type { DocumentedAgent } from '@agent-ledger/client';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { AgentDefinition, ToolCatalog } from '@agent-ledger/runtime';
import { agentSummaries } from '../agents/agent-summary';

/** The document's extension that describes the agents a caller may run, and their tools. */
export const AGENTS_EXTENSION = 'x-agent-ledger-agents';

/**
 * The document for one caller: the API's document, with the agents the
 * caller may use (every one when `entitled` is null) and their tools (built-in,
 * a plugin's or an MCP server's: name, effect and where it was declared,
 * description and arguments' schema) under {@link AGENTS_EXTENSION}, and
 * their names as the values of `StartRunRequest.agent`. The shared document
 * is not changed.
 */
export function withAgents(document: OpenAPIObject, definitions: readonly AgentDefinition[], tools: ToolCatalog, entitled: readonly string[] | null): OpenAPIObject {
  const agents: DocumentedAgent[] = agentSummaries(definitions, tools, entitled).map((agent) => {
    const described = new Map(tools.describe(agent.tools.map((tool) => tool.name).filter((name) => tools.get(name) !== undefined)).map((d) => [d.name, d]));
    return {
      name: agent.name,
      description: agent.description,
      tools: agent.tools.map((tool) => ({
        name: tool.name,
        effect: tool.effect,
        source: tool.source,
        description: described.get(tool.name)?.description ?? null,
        parameters: (described.get(tool.name)?.parameters as Record<string, unknown> | undefined) ?? null,
      })),
      preApproved: [...agent.approvals.preApproved],
    };
  });
  const schemas = { ...(document.components?.schemas ?? {}) } as Record<string, { properties?: Record<string, object> }>;
  const startRun = schemas['StartRunRequest'];
  if (startRun?.properties?.['agent'] !== undefined && agents.length > 0) {
    schemas['StartRunRequest'] = { ...startRun, properties: { ...startRun.properties, agent: { ...startRun.properties['agent'], enum: agents.map((a) => a.name) } } };
  }
  return { ...document, components: { ...document.components, schemas: schemas as NonNullable<OpenAPIObject['components']>['schemas'] }, [AGENTS_EXTENSION]: agents } as OpenAPIObject;
}
