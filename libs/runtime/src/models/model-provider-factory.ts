import { ConfigurationError } from '@agent-ledger/domain';
import type { ModelProviderConfig } from '../agents/agent-definition';
import type { ModelProvider } from './model-provider';
import type { OpenAiChatModelProviderOptions } from './openai/openai-chat-model-provider';
import { OpenAiChatModelProvider } from './openai/openai-chat-model-provider';
import { ScriptedModelProvider } from './scripted/scripted-model-provider';

/** What {@link createModelProvider} passes to the providers that talk to a server. */
export type ModelProviderFactoryOptions = OpenAiChatModelProviderOptions;

/**
 * Builds the model provider an agent's configuration names: `scripted` ->
 * {@link ScriptedModelProvider}, `openai` -> {@link OpenAiChatModelProvider}.
 *
 * @throws ConfigurationError when the configuration is invalid or names an
 *   environment variable that is not set; call it at start-up, so that a
 *   missing key stops the service rather than failing every run.
 */
export function createModelProvider(config: ModelProviderConfig, options: ModelProviderFactoryOptions = {}): ModelProvider {
  switch (config.type) {
    case 'scripted':
      return new ScriptedModelProvider(config.script);
    case 'openai':
      return new OpenAiChatModelProvider(config, options);
    default: {
      const unknown: never = config;
      throw new ConfigurationError(`Unknown model provider type ${JSON.stringify((unknown as { type?: unknown }).type)}`);
    }
  }
}
