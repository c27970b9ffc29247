import type { Infer, Schema } from './schema';
import { s } from './schema';
import type { ExternalToolEffectSource, ToolEffect } from './vocabulary';
import { EXTERNAL_TOOL_EFFECT_SOURCES, ON_DENIAL_VALUES, TOOL_EFFECTS } from './vocabulary';

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

/** Where a tool comes from, and so where its effect was declared. */
export type AgentToolSource = CodeToolSource | McpToolSource;

/**
 * {@link AgentToolSource}'s schema. Its JSON Schema is one object whose MCP
 * fields are optional (the contract's schemas have no `oneOf`): each is
 * present exactly when `kind` is `mcp`, as the type says.
 */
export const agentToolSourceSchema = s
  .object({
    kind: s.enum(['code', 'mcp']).describe("`code`: the tool's code (the product's or a plugin's) declares its effect; `mcp`: an MCP server's tool, its effect from its binding"),
    server: s.optional(s.string()).describe("The binding's server name (kind `mcp`)"),
    tool: s.optional(s.string()).describe("The tool's name on that server (kind `mcp`)"),
    effectSource: s.optional(s.enum(EXTERNAL_TOOL_EFFECT_SOURCES)).describe("Where the effect came from: the binding's declaration, the server's hints (stricter, or trusted), or the default, NON_IDEMPOTENT_WRITE (kind `mcp`)"),
    declared: s.optional(s.nullable(s.enum(TOOL_EFFECTS))).describe('What the binding declared; null when nothing (kind `mcp`)'),
    hinted: s.optional(s.nullable(s.enum(TOOL_EFFECTS))).describe("The effect the server's hints give; null when none (kind `mcp`)"),
    trusted: s.optional(s.boolean()).describe("Whether the binding trusts the server's hints (kind `mcp`)"),
    conflict: s.optional(s.boolean()).describe('Whether the declaration and the hints disagree: each step of the tool records ToolEffectConflictRecorded (kind `mcp`)'),
  })
  .named('AgentToolSource')
  .describe('Where a tool comes from, and so where its effect was declared') as Schema<unknown> as Schema<AgentToolSource>;

/** One of an agent's tools, with its effect and where the effect was declared. */
export const agentToolSummarySchema = s
  .object({
    name: s.string(),
    effect: s.enum(TOOL_EFFECTS).describe('From the tool registry: the effect its calls run with'),
    source: s.nullable(agentToolSourceSchema).describe('Where the tool and its effect come from; null for a name no tool is registered under'),
  })
  .named('AgentToolSummary')
  .describe("One of an agent's tools, with its effect and where the effect was declared");

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
