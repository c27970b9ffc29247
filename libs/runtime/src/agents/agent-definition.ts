import type { JsonObject } from '@agent-ledger/domain';
import type { AgentApprovals } from './agent-approvals';
import { DEFAULT_AGENT_APPROVALS } from './agent-approvals';

/** How an agent reaches its model: a built-in provider, or one a plugin registered. */
export type ModelProviderConfig = BuiltinModelProviderConfig | PluginModelProviderConfig;

/**
 * A provider of a type a plugin registered (`modelProviders`). The agent's
 * mapping `{ type: my-llm, model: x }` is read as `{ type: 'plugin',
 * pluginType: 'my-llm', settings: { model: 'x' } }`: every key but `type` is
 * a setting (JSON data; an `apiKey` is refused, as for `openai`) for the
 * plugin's factory. (`type: 'plugin'` keeps `provider.type === 'scripted'`
 * narrowing to the built-in providers; `plugin` cannot be registered as a type.)
 */
export interface PluginModelProviderConfig {
  readonly type: 'plugin';
  /** The type the agent named, registered by a plugin. */
  readonly pluginType: string;
  readonly settings: Readonly<JsonObject>;
}

/** The providers built into the runtime. */
export type BuiltinModelProviderConfig =
  | {
      /** A deterministic script of rounds, for demos and tests. */
      readonly type: 'scripted';
      readonly script: readonly ScriptedRound[];
    }
  | OpenAiModelProviderConfig
  | AnthropicModelProviderConfig;

/**
 * Where a provider finds its API key: the environment variable named by
 * `apiKeyEnv`, or the file named by `apiKeyFile` (its content, trimmed; e.g. a
 * container secret). At most one of them; never the key itself, which the
 * configuration refuses (`apiKey`).
 */
export interface ApiKeySource {
  /** The name of the environment variable that holds the key, e.g. `OPENAI_API_KEY` (never the key itself). */
  readonly apiKeyEnv?: string;
  /** The absolute path of a file that holds the key, e.g. `/run/secrets/openai_key` (never the key itself). */
  readonly apiKeyFile?: string;
}

/** Any OpenAI-compatible chat-completions server (OpenAI, llama.cpp, vLLM, Ollama). */
export interface OpenAiModelProviderConfig extends ApiKeySource {
  readonly type: 'openai';
  /** e.g. `http://localhost:11434/v1`, `https://api.openai.com/v1` */
  readonly baseUrl: string;
  /**
   * The name of an environment variable that, when set, replaces `baseUrl`
   * (e.g. `OPENAI_BASE_URL`: a proxy, a test server).
   */
  readonly baseUrlEnv?: string;
  readonly model: string;
  /** @default 60 */
  readonly timeoutSeconds?: number;
  /** @default 0 */
  readonly temperature?: number;
}

/** Anthropic's Messages API (`POST {baseUrl}/v1/messages`). */
export interface AnthropicModelProviderConfig extends ApiKeySource {
  readonly type: 'anthropic';
  /** @default https://api.anthropic.com */
  readonly baseUrl?: string;
  /** The name of an environment variable that, when set, replaces `baseUrl` (e.g. `ANTHROPIC_BASE_URL`). */
  readonly baseUrlEnv?: string;
  /** e.g. `claude-sonnet-4-5` */
  readonly model: string;
  /** The most tokens one reply may have (`max_tokens`, required by the API). @default 4096 */
  readonly maxTokens?: number;
  /** @default 60 */
  readonly timeoutSeconds?: number;
  /** From 0 to 1. @default 0 */
  readonly temperature?: number;
}

/**
 * One round of a scripted agent: tool calls, or the final answer. Its texts
 * (`final`, `finalIfDenied`, `finalIfFailed`, and every string in a call's
 * `arguments`) may hold placeholders filled from the run's conversation
 * (`{{result:files.read/content}}`, `{{outcome:1.0}}`, `{{error:files.append}}`;
 * docs/models-and-agents.md).
 */
export type ScriptedRound =
  | { readonly toolCalls: readonly { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> }[] }
  | {
      readonly final: string;
      /** The answer instead of `final` when a person denied a call of the run. */
      readonly finalIfDenied?: string;
      /** The answer instead of `final` when a call of the run failed (and none was denied). */
      readonly finalIfFailed?: string;
    };

/** An agent, as the configuration file defines it. */
export interface AgentDefinition {
  /** Unique name, e.g. `file-clerk`. */
  readonly name: string;
  readonly description?: string;
  /** The system prompt. */
  readonly instructions: string;
  readonly provider: ModelProviderConfig;
  /** The names of the tools offered to it; a call of any other tool is refused. */
  readonly tools: readonly string[];
  /** At most 20 (MAX_ITERATIONS). @default 20 */
  readonly maxIterations: number;
  /**
   * Which of its write tools execute without a person's approval, and what a
   * denial does. A definition loaded from the configuration file always has
   * it (with the defaults applied); one built in code may omit it: see
   * `approvalsOf`.
   * @default DEFAULT_AGENT_APPROVALS (every write asks; a denial ends the run)
   */
  readonly approvals?: AgentApprovals;
}

/** The approvals of `definition`: its own, or {@link DEFAULT_AGENT_APPROVALS} when it has none. */
export function approvalsOf(definition: AgentDefinition): AgentApprovals {
  return definition.approvals ?? DEFAULT_AGENT_APPROVALS;
}
