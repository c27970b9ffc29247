import { ConfigurationError, classifyFailure } from '@agent-ledger/domain';
import type { ModelProviderConfig } from '../agents/agent-definition';
import { AnthropicMessagesModelProvider } from './anthropic/anthropic-messages-model-provider';
import { createModelProvider } from './model-provider-factory';
import { OpenAiChatModelProvider } from './openai/openai-chat-model-provider';
import { ScriptedModelProvider } from './scripted/scripted-model-provider';

const openai = { type: 'openai', baseUrl: 'http://localhost:11434/v1/', model: 'llama3.1' } as const;

function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('createModelProvider', () => {
  it('builds a scripted provider for a scripted configuration', () => {
    expect(createModelProvider({ type: 'scripted', script: [{ final: 'x' }] })).toBeInstanceOf(ScriptedModelProvider);
  });

  it('builds an OpenAI-compatible provider, calling {baseUrl}/chat/completions without a doubled slash', () => {
    const provider = createModelProvider(openai, { env: {} });
    expect(provider).toBeInstanceOf(OpenAiChatModelProvider);
    expect((provider as OpenAiChatModelProvider).url).toBe('http://localhost:11434/v1/chat/completions');
  });

  it('refuses, at construction, an apiKeyEnv whose variable is not set, naming the variable', () => {
    const error = thrownBy(() => createModelProvider({ ...openai, apiKeyEnv: 'LEDGER_TEST_KEY' }, { env: { OTHER: 'x' } }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(classifyFailure(error)).toBe('configuration');
    expect((error as Error).message).toMatch(/environment variable LEDGER_TEST_KEY \(provider\.apiKeyEnv\) is not set/);
  });

  it('treats a blank variable as not set', () => {
    expect(() => createModelProvider({ ...openai, apiKeyEnv: 'LEDGER_TEST_KEY' }, { env: { LEDGER_TEST_KEY: '  ' } })).toThrow(/LEDGER_TEST_KEY/);
  });

  it('reads OPENAI_API_KEY by default for OpenAI\'s own URL, naming it when it is not set; no key by default for any other URL', () => {
    const hosted = { type: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } as const;
    const error = thrownBy(() => createModelProvider(hosted, { env: {} }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      'The environment variable OPENAI_API_KEY (the default of provider.apiKeyEnv for type openai) is not set: it must hold the API key of https://api.openai.com/v1 (or name a file that holds it in provider.apiKeyFile)',
    );
    expect(() => createModelProvider(hosted, { env: { OPENAI_API_KEY: 'sk-test' } })).not.toThrow();
    expect(() => createModelProvider(openai, { env: {} })).not.toThrow();
  });

  it('builds an Anthropic provider for type anthropic, calling {baseUrl}/v1/messages, refused without its key', () => {
    const anthropic = { type: 'anthropic', model: 'claude-test', baseUrl: 'http://127.0.0.1:9/' } as const;
    const provider = createModelProvider(anthropic, { env: { ANTHROPIC_API_KEY: 'sk-ant-test' } });
    expect(provider).toBeInstanceOf(AnthropicMessagesModelProvider);
    expect((provider as AnthropicMessagesModelProvider).url).toBe('http://127.0.0.1:9/v1/messages');
    expect(() => createModelProvider(anthropic, { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it('accepts an apiKeyEnv whose variable is set', () => {
    expect(() => createModelProvider({ ...openai, apiKeyEnv: 'LEDGER_TEST_KEY' }, { env: { LEDGER_TEST_KEY: 'sk-test' } })).not.toThrow();
  });

  it('validates a configuration built in code, naming each bad field', () => {
    const error = thrownBy(() =>
      createModelProvider({ ...openai, baseUrl: 'localhost:11434', timeoutSeconds: 0 } as ModelProviderConfig, { env: {} }),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('provider.baseUrl must be an http(s) URL');
    expect((error as Error).message).toContain('provider.timeoutSeconds must be a number greater than 0');
  });

  it('refuses an unknown provider type', () => {
    expect(() => createModelProvider({ type: 'magic' } as unknown as ModelProviderConfig)).toThrow(ConfigurationError);
  });

  describe('a type registered by a plugin', () => {
    const config: ModelProviderConfig = { type: 'plugin', pluginType: 'echo', settings: { model: 'small' } };

    it('builds the provider with the registered factory, given the settings, the environment and fetch', () => {
      const provider = { respond: jest.fn() };
      const factory = jest.fn(() => provider);
      const env = { ECHO_KEY: 'k' };
      expect(createModelProvider(config, { providers: { echo: factory }, env })).toBe(provider);
      expect(factory).toHaveBeenCalledWith({ model: 'small' }, { env, fetch: globalThis.fetch });
    });

    it('refuses a type that no one registered, naming the known ones', () => {
      expect(() => createModelProvider(config, { providers: { other: () => ({ respond: jest.fn() }) } })).toThrow('Unknown model provider type "echo" (known: scripted, openai, anthropic, other)');
    });

    it('refuses a factory that returns no provider, and wraps one that throws, naming the type', () => {
      expect(() => createModelProvider(config, { providers: { echo: () => ({}) as never } })).toThrow(
        'The model provider factory of type "echo" returned no model provider (an object with a respond(request) method)',
      );
      const error = thrownBy(() =>
        createModelProvider(config, {
          providers: {
            echo: () => {
              throw new TypeError('model is required');
            },
          },
        }),
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toBe('The model provider factory of type "echo" refused its settings (model): model is required');
    });
  });
});
