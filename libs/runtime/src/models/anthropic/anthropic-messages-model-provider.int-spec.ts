import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigurationError, classifyFailure, isRetryable } from '@agent-ledger/domain';
import type { AnthropicModelProviderConfig } from '../../agents/agent-definition';
import { ModelProviderHttpError } from '../model-provider-http.error';
import { ModelProviderTimeoutError } from '../model-provider-timeout.error';
import { ModelProviderUnreachableError } from '../model-provider-unreachable.error';
import { ModelReplyInvalidError } from '../model-reply-invalid.error';
import { ModelReplyTruncatedError } from '../model-reply-truncated.error';
import { AnthropicMessagesModelProvider } from './anthropic-messages-model-provider';
import { FakeModelServer, anthropicError, anthropicMessage, closedPort } from '../../../../../test/support/fake-model-server';
import { scaled } from '../../../../../test/support/time-scale';
import { clerkRequest as request, failureOf } from '../../../../../test/support/model-request';

const KEY = 'sk-ant-api03-local-test-key-0123456789';

function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('AnthropicMessagesModelProvider against a local HTTP server', () => {
  const server = new FakeModelServer();
  let baseUrl: string;
  let config: AnthropicModelProviderConfig;
  const env = { ANTHROPIC_API_KEY: KEY };

  beforeAll(async () => {
    baseUrl = await server.start();
    config = { type: 'anthropic', baseUrl, model: 'claude-test' };
  });

  afterAll(async () => {
    await server.stop();
  });

  it('posts the conversation, the offered tools and the settings to /v1/messages with x-api-key and anthropic-version, and maps tool_use blocks', async () => {
    server.json(200, anthropicMessage([{ type: 'tool_use', id: 'toolu_01A', name: 'files__write', input: { path: 'out.txt', content: 'hello' } }]));
    const provider = new AnthropicMessagesModelProvider({ ...config, maxTokens: 512, temperature: 0.5 }, { env });

    const response = await provider.respond(request());

    expect(response).toEqual({ type: 'toolCalls', calls: [{ toolName: 'files.write', arguments: { path: 'out.txt', content: 'hello' } }] });
    const seen = server.last;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/messages');
    expect(seen.headers['x-api-key']).toBe(KEY);
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['authorization']).toBeUndefined();
    expect(seen.body).toEqual({
      model: 'claude-test',
      max_tokens: 512,
      system: 'You are a clerk.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Copy in.txt to out.txt' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'run-1_r0_t0', name: 'files__read', input: { path: 'in.txt' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'run-1_r0_t0', content: '{"text":"hello"}' }] },
      ],
      tools: [
        { name: 'files__read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
        { name: 'files__write', description: 'Writes a file', input_schema: { type: 'object' } },
      ],
      temperature: 0.5,
    });
  });

  it('maps an end_turn text reply to the final answer, with the defaults: max_tokens 4096, temperature 0', async () => {
    server.json(200, anthropicMessage([{ type: 'text', text: 'The copy is done.' }]));
    const provider = new AnthropicMessagesModelProvider(config, { env });

    expect(await provider.respond(request({ tools: [] }))).toEqual({ type: 'final', content: 'The copy is done.' });
    expect(server.last.body).toMatchObject({ max_tokens: 4096, temperature: 0 });
    expect(server.last.body).not.toHaveProperty('tools');
  });

  it.each([
    [429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
    [529, 'overloaded_error', 'Overloaded'],
  ])('throws ModelProviderHttpError for %i %s, classified rateLimit (retryable), with Retry-After as retryAfterMs and the server\'s message', async (status, type, message) => {
    server.json(status, anthropicError(type, message), { 'retry-after': '7' });
    const provider = new AnthropicMessagesModelProvider(config, { env });

    const error = await failureOf(provider.respond(request()));

    expect(error).toBeInstanceOf(ModelProviderHttpError);
    expect(error).toMatchObject({ status, retryAfterMs: 7000, url: `${baseUrl}/v1/messages` });
    expect((error as Error).message).toBe(`The anthropic model server answered HTTP ${status} to POST ${baseUrl}/v1/messages: ${type}: ${message} (retry after 7000 ms)`);
    expect(classifyFailure(error)).toBe('rateLimit');
    expect(isRetryable(classifyFailure(error))).toBe(true);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    server.json(429, anthropicError('rate_limit_error', 'slow down'), { 'retry-after': 'Tue, 01 Dec 2026 10:00:30 GMT' });
    const provider = new AnthropicMessagesModelProvider(config, { env, now: () => now });
    expect(await failureOf(provider.respond(request()))).toMatchObject({ retryAfterMs: 30_000 });
  });

  it.each([
    [401, 'authentication_error', 'auth'],
    [403, 'permission_error', 'auth'],
    [400, 'invalid_request_error', 'clientError'],
    [404, 'not_found_error', 'clientError'],
    [500, 'api_error', 'serverError'],
    [503, 'api_error', 'serverError'],
  ])('classifies HTTP %i (%s) as %s', async (status, type, failureClass) => {
    server.json(status, anthropicError(type, 'nope'));
    const provider = new AnthropicMessagesModelProvider(config, { env });
    const error = await failureOf(provider.respond(request()));
    expect(error).toBeInstanceOf(ModelProviderHttpError);
    expect(error).toMatchObject({ status });
    expect((error as Error).message).toContain(`${type}: nope`);
    expect(classifyFailure(error)).toBe(failureClass);
  });

  it('keeps the key out of an error whose body echoes it: [redacted] in the message and the excerpt', async () => {
    server.json(401, anthropicError('authentication_error', `invalid x-api-key: ${KEY}`));
    const provider = new AnthropicMessagesModelProvider(config, { env });
    const error = (await failureOf(provider.respond(request()))) as ModelProviderHttpError;
    expect(error.message).toContain('authentication_error: invalid x-api-key: [redacted]');
    expect(error.bodyExcerpt).toContain('[redacted]');
    expect(`${error.message} ${error.bodyExcerpt} ${inspect(error)}`).not.toContain(KEY);
  });

  it('never shows the key when the provider itself is inspected or serialised (as a log line would)', () => {
    const provider = new AnthropicMessagesModelProvider(config, { env });
    expect(inspect(provider, { depth: 10, showHidden: true })).not.toContain(KEY);
    expect(JSON.stringify(provider)).not.toContain(KEY);
  });

  it('refuses a reply cut off at max_tokens (configuration, not retried)', async () => {
    server.json(200, anthropicMessage([{ type: 'text', text: 'It is no' }], 'max_tokens'));
    const provider = new AnthropicMessagesModelProvider({ ...config, maxTokens: 16 }, { env });
    const error = await failureOf(provider.respond(request()));
    expect(error).toBeInstanceOf(ModelReplyTruncatedError);
    expect(error).toMatchObject({ maxTokens: 16 });
    expect(classifyFailure(error)).toBe('configuration');
  });

  it('refuses a 2xx body that is not JSON, and one without content, as ModelReplyInvalidError (serverError)', async () => {
    server.answer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'));
    const provider = new AnthropicMessagesModelProvider(config, { env });
    const notJson = await failureOf(provider.respond(request()));
    expect(notJson).toBeInstanceOf(ModelReplyInvalidError);
    expect(classifyFailure(notJson)).toBe('serverError');
    server.json(200, { type: 'message', role: 'assistant' });
    expect(await failureOf(provider.respond(request()))).toMatchObject({ problem: 'content is missing or not a list' });
  });

  it('aborts a reply slower than timeoutSeconds with ModelProviderTimeoutError, classified connection', async () => {
    server.slow(10_000, anthropicMessage([{ type: 'text', text: 'late' }]));
    const provider = new AnthropicMessagesModelProvider({ ...config, timeoutSeconds: 0.2 }, { env });
    const started = Date.now();

    const error = await failureOf(provider.respond(request()));

    expect(Date.now() - started).toBeLessThan(scaled(5_000));
    expect(error).toBeInstanceOf(ModelProviderTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 200, url: `${baseUrl}/v1/messages` });
    expect((error as Error).message).toBe(`The anthropic model server did not answer POST ${baseUrl}/v1/messages within 200 ms`);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(classifyFailure(error)).toBe('connection');
  });

  it("stops at once when the request's signal fires (cancellation), rejecting with its reason", async () => {
    server.slow(10_000, anthropicMessage([{ type: 'text', text: 'late' }]));
    const provider = new AnthropicMessagesModelProvider(config, { env });
    const controller = new AbortController();
    const reason = new Error('run cancelled');

    const pending = failureOf(provider.respond(request({ signal: controller.signal })));
    await waitFor(() => server.requests.length === 1);
    controller.abort(reason);

    expect(await pending).toBe(reason);
  });

  it('names the provider, the URL and the cause when the server cannot be reached, classified connection', async () => {
    const port = await closedPort();
    const provider = new AnthropicMessagesModelProvider({ ...config, baseUrl: `http://127.0.0.1:${port}` }, { env });

    const error = await failureOf(provider.respond(request()));

    expect(error).toBeInstanceOf(ModelProviderUnreachableError);
    expect(error).toMatchObject({ provider: 'anthropic', url: `http://127.0.0.1:${port}/v1/messages` });
    expect((error as Error).message).toBe(`The anthropic model server could not be reached at POST http://127.0.0.1:${port}/v1/messages: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(classifyFailure(error)).toBe('connection');
  });

  describe('the API key and the URL', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'anthropic-key-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads ANTHROPIC_API_KEY by default, and refuses to build without it, naming the variable', () => {
      const error = thrownBy(() => new AnthropicMessagesModelProvider(config, { env: {} }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toBe(
        `The environment variable ANTHROPIC_API_KEY (the default of provider.apiKeyEnv for type anthropic) is not set: it must hold the API key of ${baseUrl} (or name a file that holds it in provider.apiKeyFile)`,
      );
    });

    it('reads the variable apiKeyEnv names', async () => {
      server.json(200, anthropicMessage([{ type: 'text', text: 'ok' }]));
      await new AnthropicMessagesModelProvider({ ...config, apiKeyEnv: 'TEAM_CLAUDE_KEY' }, { env: { TEAM_CLAUDE_KEY: ` ${KEY}\n` } }).respond(request());
      expect(server.last.headers['x-api-key']).toBe(KEY);
      expect(() => new AnthropicMessagesModelProvider({ ...config, apiKeyEnv: 'TEAM_CLAUDE_KEY' }, { env })).toThrow(
        /^The environment variable TEAM_CLAUDE_KEY \(provider\.apiKeyEnv\) is not set/,
      );
    });

    it('reads the key from apiKeyFile, trimmed (a container secret), and names a file that is missing or empty', async () => {
      const file = join(dir, 'anthropic_key');
      writeFileSync(file, `${KEY}\n`);
      server.json(200, anthropicMessage([{ type: 'text', text: 'ok' }]));
      await new AnthropicMessagesModelProvider({ ...config, apiKeyFile: file }, { env: {} }).respond(request());
      expect(server.last.headers['x-api-key']).toBe(KEY);

      const missing = join(dir, 'nothing-here');
      expect(() => new AnthropicMessagesModelProvider({ ...config, apiKeyFile: missing }, { env })).toThrow(
        `The API key file ${missing} (provider.apiKeyFile) of the anthropic provider cannot be read (ENOENT): it must hold the API key of ${baseUrl}`,
      );
      const empty = join(dir, 'empty');
      writeFileSync(empty, ' \n');
      expect(() => new AnthropicMessagesModelProvider({ ...config, apiKeyFile: empty }, { env })).toThrow(`The API key file ${empty} (provider.apiKeyFile) of the anthropic provider is empty`);
    });

    it('defaults baseUrl to https://api.anthropic.com, replaced by the variable baseUrlEnv names when it is set', () => {
      expect(new AnthropicMessagesModelProvider({ type: 'anthropic', model: 'm' }, { env }).url).toBe('https://api.anthropic.com/v1/messages');
      const overridden = new AnthropicMessagesModelProvider({ type: 'anthropic', model: 'm', baseUrlEnv: 'ANTHROPIC_BASE_URL' }, { env: { ...env, ANTHROPIC_BASE_URL: `${baseUrl}/` } });
      expect(overridden.url).toBe(`${baseUrl}/v1/messages`);
      expect(() => new AnthropicMessagesModelProvider({ type: 'anthropic', model: 'm', baseUrlEnv: 'ANTHROPIC_BASE_URL' }, { env: { ...env, ANTHROPIC_BASE_URL: 'localhost:1' } })).toThrow(
        'the environment variable ANTHROPIC_BASE_URL (provider.baseUrlEnv) must be an http(s) URL, not "localhost:1"',
      );
    });
  });
});

/** Polls `condition` until it holds, failing after 5 s (scaled for load). */
async function waitFor(condition: () => boolean): Promise<void> {
  const limitMs = scaled(5_000);
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
