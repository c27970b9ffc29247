import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AnthropicMessagesModelProvider } from '../models/anthropic/anthropic-messages-model-provider';
import { createModelProvider } from '../models/model-provider-factory';
import { OpenAiChatModelProvider } from '../models/openai/openai-chat-model-provider';
import { loadAgentsConfig } from './agents-config-loader';

const CONFIG = join(__dirname, '../../../../config');
/** The built-in tools (libs/runtime/src/tools/builtin). */
const BUILT_IN_TOOLS = ['files.read', 'files.write', 'files.append', 'files.list', 'clock.now', 'user.ask'];

describe.each([
  ['agents.openai.yaml', { type: 'openai', baseUrl: 'https://api.openai.com/v1', baseUrlEnv: 'OPENAI_BASE_URL', model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY', timeoutSeconds: 60 }],
  [
    'agents.anthropic.yaml',
    { type: 'anthropic', baseUrl: 'https://api.anthropic.com', baseUrlEnv: 'ANTHROPIC_BASE_URL', model: 'claude-haiku-4-5', apiKeyEnv: 'ANTHROPIC_API_KEY', maxTokens: 1024, timeoutSeconds: 60 },
  ],
  ['agents.ollama.yaml', { type: 'openai', baseUrl: 'http://localhost:11434/v1', baseUrlEnv: 'OLLAMA_BASE_URL', model: 'llama3.1', timeoutSeconds: 300 }],
])('config/%s', (file, provider) => {
  const path = join(CONFIG, file);

  it('is valid: one agent, built-in tools only, the provider as documented', async () => {
    const config = await loadAgentsConfig(path, { knownTools: BUILT_IN_TOOLS });
    expect(config.agents.map((agent) => agent.name)).toEqual(['assistant']);
    const [assistant] = config.agents;
    expect(assistant?.tools).toEqual(['files.list', 'files.read', 'files.write', 'clock.now']);
    expect(assistant?.provider).toEqual(provider);
  });

  it('pre-approves nothing: files.write waits for a person, and a denial is told to the model', async () => {
    const [assistant] = (await loadAgentsConfig(path)).agents;
    expect(assistant?.approvals).toEqual({ preApproved: [], onDenial: 'tellModel' });
  });

  it('holds no key: no value that looks like one', async () => {
    const text = await readFile(path, 'utf8');
    expect(text).not.toMatch(/\bsk-[A-Za-z0-9_-]{8,}/);
  });
});

describe('the providers of the agents files, built as the service builds them', () => {
  it('agents.openai.yaml: an OpenAI provider on https://api.openai.com/v1 that needs OPENAI_API_KEY, or OPENAI_BASE_URL\'s URL', async () => {
    const [assistant] = (await loadAgentsConfig(join(CONFIG, 'agents.openai.yaml'))).agents;
    if (assistant === undefined) throw new Error('no agent');
    expect(() => createModelProvider(assistant.provider, { env: {} })).toThrow(/environment variable OPENAI_API_KEY \(provider\.apiKeyEnv\) is not set/);
    const hosted = createModelProvider(assistant.provider, { env: { OPENAI_API_KEY: 'sk-test' } });
    expect(hosted).toBeInstanceOf(OpenAiChatModelProvider);
    expect((hosted as OpenAiChatModelProvider).url).toBe('https://api.openai.com/v1/chat/completions');
    const proxied = createModelProvider(assistant.provider, { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1' } });
    expect((proxied as OpenAiChatModelProvider).url).toBe('http://127.0.0.1:8080/v1/chat/completions');
  });

  it('agents.anthropic.yaml: an Anthropic provider on https://api.anthropic.com that needs ANTHROPIC_API_KEY', async () => {
    const [assistant] = (await loadAgentsConfig(join(CONFIG, 'agents.anthropic.yaml'))).agents;
    if (assistant === undefined) throw new Error('no agent');
    expect(() => createModelProvider(assistant.provider, { env: {} })).toThrow(/environment variable ANTHROPIC_API_KEY \(provider\.apiKeyEnv\) is not set/);
    const provider = createModelProvider(assistant.provider, { env: { ANTHROPIC_API_KEY: 'sk-ant-test' } });
    expect(provider).toBeInstanceOf(AnthropicMessagesModelProvider);
    expect((provider as AnthropicMessagesModelProvider).url).toBe('https://api.anthropic.com/v1/messages');
  });

  it('agents.ollama.yaml: an OpenAI-compatible provider on http://localhost:11434/v1 that needs no key', async () => {
    const [assistant] = (await loadAgentsConfig(join(CONFIG, 'agents.ollama.yaml'))).agents;
    if (assistant === undefined) throw new Error('no agent');
    const provider = createModelProvider(assistant.provider, { env: {} });
    expect((provider as OpenAiChatModelProvider).url).toBe('http://localhost:11434/v1/chat/completions');
  });
});
