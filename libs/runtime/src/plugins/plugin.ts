import type { ToolEffect } from '@agent-ledger/domain';
import type { McpValueSource } from '../mcp/mcp-server-binding';
import type { ModelProviderFactory } from '../models/model-provider-factory';
import type { ToolDataClass } from '../tools/tool-metadata';
import type { ToolClass } from '../tools/tool.decorator';

/**
 * An agent as a plugin defines it: the shape of one entry of the agents file
 * (`name`, `instructions`, `provider`, `tools`, `maxIterations`?,
 * `description`?, `approvals`?), checked by the same validation.
 */
export interface PluginAgentConfig {
  /** Lower-case letters, digits and `-`; unique among the agents file's and every plugin's agents. */
  readonly name: string;
  readonly description?: string;
  /** The system prompt. */
  readonly instructions: string;
  /**
   * `{ type: 'scripted', script: [...] }`, `{ type: 'openai', baseUrl, model, apiKeyEnv? }`,
   * or `{ type: '<a plugin's provider type>', ...settings }`.
   */
  readonly provider: { readonly type: string; readonly [setting: string]: unknown };
  /** The names of the tools offered to it (built-in or any plugin's). @default [] */
  readonly tools?: readonly string[];
  /** @default 20 */
  readonly maxIterations?: number;
  readonly approvals?: { readonly preApproved?: readonly string[]; readonly onDenial?: 'tellModel' | 'endRun' };
}

/**
 * An MCP server as a plugin binds it: the shape of one entry of the agents
 * file's `mcpServers`, checked by the same validation (relative paths from
 * the plugin file's folder). Its tools are named `<server>.<tool>` (or `as`).
 */
export interface PluginMcpServerConfig {
  /** Lower-case letters, digits and `-`, starting with a letter; unique among every binding of the service. */
  readonly name: string;
  readonly transport:
    | {
        readonly type: 'stdio';
        readonly command: string;
        readonly args?: readonly string[];
        readonly cwd?: string;
        readonly env?: Readonly<Record<string, McpValueSource>>;
      }
    | { readonly type: 'http'; readonly url: string; readonly headers?: Readonly<Record<string, McpValueSource>> };
  /** @default false */
  readonly trustHints?: boolean;
  /** @default 30 */
  readonly startTimeoutSeconds?: number;
  /** @default 65536 */
  readonly maxInlineBytes?: number;
  /** @default 262144 */
  readonly maxResultBytes?: number;
  /** @default { initialDelayMs: 1000, maxDelayMs: 30000 } */
  readonly restart?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /** The tools offered to agents, by their name on the server; each declares its effect here (absent: `NON_IDEMPOTENT_WRITE` unless the hints are trusted). */
  readonly tools: Readonly<
    Record<
      string,
      {
        readonly effect?: ToolEffect;
        readonly operationDeadlineSeconds?: number;
        readonly dataClass?: ToolDataClass;
        readonly requiresApproval?: boolean;
        readonly as?: string;
      } | null
    >
  >;
}

/**
 * What a plugin module exports (as its default export, or as `module.exports`):
 * tools, agents, model providers and MCP servers added to the service
 * (`serve`, `worker`).
 * Every key is optional, at least one is given; any other key is refused.
 */
export interface AgentLedgerPlugin {
  /**
   * Tool classes decorated with `@Tool({...})`, each declaring its effect in
   * code with `getEffect()` (in a plugin, `READ_ONLY` too must be declared).
   * Built by Nest in the tools module: a constructor takes no argument.
   */
  readonly tools?: readonly ToolClass[];
  /** Agents, in the shape of an entry of the agents file. */
  readonly agents?: readonly PluginAgentConfig[];
  /** Model provider factories by the `provider.type` they serve (not `scripted`, `openai` or `plugin`). */
  readonly modelProviders?: Readonly<Record<string, ModelProviderFactory>>;
  /** MCP servers whose tools are offered to agents, each tool's effect declared in its binding. */
  readonly mcpServers?: readonly PluginMcpServerConfig[];
}

/** The keys a plugin object may have. */
export const PLUGIN_KEYS: readonly (keyof AgentLedgerPlugin)[] = Object.freeze(['tools', 'agents', 'modelProviders', 'mcpServers'] as const);

/**
 * Declares a plugin: returns it unchanged, typed, so that TypeScript checks
 * it. `export default definePlugin({ tools: [...], agents: [...] })`.
 */
export function definePlugin<const T extends AgentLedgerPlugin>(plugin: T): T {
  return plugin;
}
