import type { ModelProviderFactory } from '../models/model-provider-factory';
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
 * What a plugin module exports (as its default export, or as `module.exports`):
 * tools, agents and model providers added to the service (`serve`, `worker`).
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
}

/** The keys a plugin object may have. */
export const PLUGIN_KEYS: readonly (keyof AgentLedgerPlugin)[] = Object.freeze(['tools', 'agents', 'modelProviders'] as const);

/**
 * Declares a plugin: returns it unchanged, typed, so that TypeScript checks
 * it. `export default definePlugin({ tools: [...], agents: [...] })`.
 */
export function definePlugin<const T extends AgentLedgerPlugin>(plugin: T): T {
  return plugin;
}
