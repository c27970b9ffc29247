import { ConfigurationError, classifyFailure } from '@agent-ledger/domain';
import type { ModelProviderConfig } from '../agents/agent-definition';
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
});
