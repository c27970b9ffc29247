import type { Infer } from './schema';
import { s } from './schema';
import { ON_DENIAL_VALUES, TOOL_EFFECTS } from './vocabulary';

/** One of an agent's tools, with the effect its code declares. */
export const agentToolSummarySchema = s
  .object({ name: s.string(), effect: s.enum(TOOL_EFFECTS).describe('From the tool registry') })
  .named('AgentToolSummary')
  .describe("One of an agent's tools, with the effect its code declares");

/** When an agent's calls wait for a person, and what a denial does. */
export const agentApprovalsSummarySchema = s
  .object({
    preApproved: s.array(s.string()).describe('Write tools that execute without asking'),
    onDenial: s.enum(ON_DENIAL_VALUES),
  })
  .named('AgentApprovalsSummary')
  .describe("When the agent's calls wait for a person, and what a denial does");

/** A configured agent as a client may see it (never its instructions nor its model provider). */
export const agentSummarySchema = s
  .object({
    name: s.string(),
    description: s.nullable(s.string()),
    tools: s.array(agentToolSummarySchema).describe('Its tools, in the order of its configuration'),
    approvals: agentApprovalsSummarySchema,
  })
  .named('AgentSummary')
  .describe('A configured agent as a client may see it (never its instructions nor its model provider)');

/** {@link agentSummarySchema}'s type. */
export type AgentSummary = Infer<typeof agentSummarySchema>;

/** `GET /agents`: the configured agents the key may use, by name. */
export const agentsAnswerSchema = s.object({ agents: s.array(agentSummarySchema) }).named('AgentsAnswer').describe('The configured agents the key may use, by name');

/** {@link agentsAnswerSchema}'s type. */
export type AgentsAnswer = Infer<typeof agentsAnswerSchema>;
