import { ConfigurationError } from '@agent-ledger/domain';
import type { JsonObject } from '@agent-ledger/domain';
import type { ModelProviderConfig, PluginModelProviderConfig } from '../agents/agent-definition';
import { MODEL_PROVIDER_TYPES } from '../agents/model-provider-config-validation';
import { AnthropicMessagesModelProvider } from './anthropic/anthropic-messages-model-provider';
import type { ModelProvider } from './model-provider';
import type { HttpModelProviderOptions } from './model-http-call';
import { OpenAiChatModelProvider } from './openai/openai-chat-model-provider';
import { ScriptedModelProvider } from './scripted/scripted-model-provider';

/** What a {@link ModelProviderFactory} is given besides the agent's settings. */
export interface ModelProviderFactoryContext {
  /** Where to read secrets named by the settings (e.g. an `apiKeyEnv`). @default process.env */
  readonly env: NodeJS.ProcessEnv;
  /** @default globalThis.fetch */
  readonly fetch: typeof fetch;
}

/**
 * Builds a model provider of a type a plugin registers, from the settings of
 * an agent's `provider` mapping (every key but `type`). Called once per agent
 * of that type, when the runtime is built (at start-up): throw (a
 * `ConfigurationError` naming the setting) to refuse bad settings.
 */
export type ModelProviderFactory = (settings: Readonly<JsonObject>, context: ModelProviderFactoryContext) => ModelProvider;

/** Model provider factories by the `provider.type` they serve. */
export type ModelProviderFactories = Readonly<Record<string, ModelProviderFactory>>;

/** What {@link createModelProvider} passes to the providers it builds. */
export interface ModelProviderFactoryOptions extends HttpModelProviderOptions {
  /**
   * The provider types registered besides the built-in ones (`scripted`,
   * `openai`, `anthropic`), e.g. by plugins. A type must not be a built-in one.
   * @default {}
   */
  readonly providers?: ModelProviderFactories;
}

/**
 * Whether `type` cannot be registered as a plugin's provider type: a type
 * built into the runtime (`scripted`, `openai`, `anthropic`) or `plugin` (reserved).
 */
export function isReservedModelProviderType(type: string): boolean {
  return type === 'plugin' || (MODEL_PROVIDER_TYPES as readonly string[]).includes(type);
}

/**
 * Builds the model provider an agent's configuration names: `scripted` ->
 * {@link ScriptedModelProvider}, `openai` -> {@link OpenAiChatModelProvider},
 * `anthropic` -> {@link AnthropicMessagesModelProvider}, a type of
 * `options.providers` -> that factory's provider.
 *
 * @throws ConfigurationError when the configuration is invalid, names an
 *   environment variable that is not set or a key file that cannot be read,
 *   names an unregistered type, or the
 *   factory throws or returns no provider; call it at start-up, so that a
 *   missing key stops the service rather than failing every run.
 */
export function createModelProvider(config: ModelProviderConfig, options: ModelProviderFactoryOptions = {}): ModelProvider {
  switch (config.type) {
    case 'scripted':
      return new ScriptedModelProvider(config.script);
    case 'openai':
      return new OpenAiChatModelProvider(config, options);
    case 'anthropic':
      return new AnthropicMessagesModelProvider(config, options);
    case 'plugin':
      return createPluginModelProvider(config, options);
    default: {
      const unknown: never = config;
      const known = [...MODEL_PROVIDER_TYPES, ...Object.keys(options.providers ?? {})];
      throw new ConfigurationError(`Unknown model provider type ${JSON.stringify((unknown as { type?: unknown }).type)} (known: ${known.join(', ')})`);
    }
  }
}

function createPluginModelProvider(config: PluginModelProviderConfig, options: ModelProviderFactoryOptions): ModelProvider {
  const type = config.pluginType;
  const factory = Object.hasOwn(options.providers ?? {}, type) ? options.providers?.[type] : undefined;
  if (factory === undefined) {
    const known = [...MODEL_PROVIDER_TYPES, ...Object.keys(options.providers ?? {})];
    throw new ConfigurationError(`Unknown model provider type ${JSON.stringify(type)} (known: ${known.join(', ')})`);
  }
  const { settings } = config;
  let provider: unknown;
  // The settings' names only in a message: a value may be a secret.
  try {
    provider = factory(settings, { env: options.env ?? process.env, fetch: options.fetch ?? globalThis.fetch });
  } catch (error) {
    throw new ConfigurationError(`The model provider factory of type ${JSON.stringify(type)} refused its settings (${Object.keys(settings).join(', ') || 'none'}): ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (typeof (provider as Partial<ModelProvider> | null)?.respond !== 'function') {
    throw new ConfigurationError(`The model provider factory of type ${JSON.stringify(type)} returned no model provider (an object with a respond(request) method)`);
  }
  return provider as ModelProvider;
}
