import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { classifyFailure, isRetryable } from '@agent-ledger/domain';
import { ModelProviderHttpError } from '../model-provider-http.error';
import { ModelProviderTimeoutError } from '../model-provider-timeout.error';
import { ModelReplyInvalidError } from '../model-reply-invalid.error';
import type { OpenAiProviderConfig } from './openai-chat-model-provider';
import { OpenAiChatModelProvider } from './openai-chat-model-provider';
import { ModelProviderUnreachableError } from '../model-provider-unreachable.error';
import { scaled } from '../../../../../test/support/time-scale';
import { closedPort, FakeModelServer } from '../../../../../test/support/fake-model-server';
import { clerkRequest as request, failureOf } from '../../../../../test/support/model-request';

function chatReply(message: unknown): unknown {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'test', choices: [{ index: 0, message, finish_reason: 'stop' }] };
}

describe('OpenAiChatModelProvider against a local HTTP server', () => {
  const server = new FakeModelServer();
  let baseUrl: string;
  let config: OpenAiProviderConfig;

  beforeAll(async () => {
    baseUrl = `${await server.start()}/v1`;
    config = { type: 'openai', baseUrl, model: 'test-model' };
  });

  afterAll(async () => {
    await server.stop();
  });

  it('posts the conversation, the offered tools and the settings, with the bearer key, and maps tool calls', async () => {
    server.json(
      200,
      chatReply({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'files__write', arguments: '{"path":"out.txt","content":"hello"}' } }],
      }),
    );
    const provider = new OpenAiChatModelProvider(
      { ...config, apiKeyEnv: 'LEDGER_TEST_KEY', temperature: 0.3 },
      { env: { LEDGER_TEST_KEY: 'sk-local-test' } },
    );

    const response = await provider.respond(request());

    expect(response).toEqual({ type: 'toolCalls', calls: [{ toolName: 'files.write', arguments: { path: 'out.txt', content: 'hello' } }] });
    const seen = server.last;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/chat/completions');
    expect(seen.headers['authorization']).toBe('Bearer sk-local-test');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.body).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'You are a clerk.' },
        { role: 'user', content: 'Copy in.txt to out.txt' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'run-1/r0/t0', type: 'function', function: { name: 'files__read', arguments: '{"path":"in.txt"}' } }],
        },
        { role: 'tool', tool_call_id: 'run-1/r0/t0', content: '{"text":"hello"}' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'files__read', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
        },
        { type: 'function', function: { name: 'files__write', description: 'Writes a file', parameters: { type: 'object' } } },
      ],
      temperature: 0.3,
      stream: false,
    });
  });

  it('maps a final message, sends no Authorization header without apiKeyEnv, omits tools when none is offered and defaults temperature to 0', async () => {
    server.json(200, chatReply({ role: 'assistant', content: 'The copy is done.' }));
    const provider = new OpenAiChatModelProvider(config, { env: {} });

    const response = await provider.respond(request({ tools: [] }));

    expect(response).toEqual({ type: 'final', content: 'The copy is done.' });
    expect(server.last.headers['authorization']).toBeUndefined();
    expect(server.last.body).not.toHaveProperty('tools');
    expect(server.last.body).toHaveProperty('temperature', 0);
  });

  it('throws ModelProviderHttpError for 429, classified rateLimit, with Retry-After as retryAfterMs', async () => {
    server.json(429, { error: { message: 'Rate limit reached', type: 'rate_limit_error' } }, { 'retry-after': '3' });
    const provider = new OpenAiChatModelProvider(config, { env: {} });

    const error = await failureOf(provider.respond(request()));

    expect(error).toBeInstanceOf(ModelProviderHttpError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 3000, url: `${baseUrl}/chat/completions` });
    expect((error as Error).message).toBe(`The openai model server answered HTTP 429 to POST ${baseUrl}/chat/completions: Rate limit reached (retry after 3000 ms)`);
    expect(classifyFailure(error)).toBe('rateLimit');
    expect(isRetryable(classifyFailure(error))).toBe(true);
  });

  it('throws for 500, classified serverError, keeping an excerpt of the body', async () => {
    server.answer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`model crashed: ${'x'.repeat(2000)}`));
    const provider = new OpenAiChatModelProvider(config, { env: {} });

    const error = await failureOf(provider.respond(request()));

    expect(error).toBeInstanceOf(ModelProviderHttpError);
    expect(classifyFailure(error)).toBe('serverError');
    expect((error as ModelProviderHttpError).bodyExcerpt).toMatch(/^model crashed: x+$/);
    expect((error as ModelProviderHttpError).bodyExcerpt).toHaveLength(500);
    expect((error as ModelProviderHttpError).retryAfterMs).toBeUndefined();
  });

  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [400, 'clientError'],
    [404, 'clientError'],
    [503, 'serverError'],
  ])('classifies HTTP %i as %s', async (status, failureClass) => {
    server.json(status, { error: { message: 'nope' } });
    const provider = new OpenAiChatModelProvider(config, { env: {} });
    const error = await failureOf(provider.respond(request()));
    expect(error).toMatchObject({ status });
    expect(classifyFailure(error)).toBe(failureClass);
  });

  it('refuses tool-call arguments that are not valid JSON as ModelReplyInvalidError, classified serverError', async () => {
    server.json(200, chatReply({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'files__read', arguments: '{"path": ' } }] }));
    const provider = new OpenAiChatModelProvider(config, { env: {} });

    const error = await failureOf(provider.respond(request()));

    expect(error).toBeInstanceOf(ModelReplyInvalidError);
    expect((error as ModelReplyInvalidError).problem).toMatch(/tool_calls\[0\]\.function\.arguments is not valid JSON/);
    expect(classifyFailure(error)).toBe('serverError');
  });

  it('refuses a 2xx body that is not JSON', async () => {
    server.answer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'));
    const provider = new OpenAiChatModelProvider(config, { env: {} });
    const error = await failureOf(provider.respond(request()));
    expect(error).toBeInstanceOf(ModelReplyInvalidError);
    expect(classifyFailure(error)).toBe('serverError');
  });

  it('aborts a reply slower than timeoutSeconds, classified connection', async () => {
    server.slow(10_000, chatReply({ role: 'assistant', content: 'late' }));
    const provider = new OpenAiChatModelProvider({ ...config, timeoutSeconds: 0.2 }, { env: {} });
    const started = Date.now();

    const error = await failureOf(provider.respond(request()));

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(ModelProviderTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 200 });
    expect((error as Error).message).toBe(`The openai model server did not answer POST ${baseUrl}/chat/completions within 200 ms`);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(classifyFailure(error)).toBe('connection');
  });

  it("stops at once when the request's signal fires (cancellation), rejecting with its reason", async () => {
    server.slow(10_000, chatReply({ role: 'assistant', content: 'late' }));
    const provider = new OpenAiChatModelProvider(config, { env: {} });
    const controller = new AbortController();
    const reason = new Error('run cancelled');

    const pending = failureOf(provider.respond(request({ signal: controller.signal })));
    await waitFor(() => server.requests.length === 1);
    controller.abort(reason);

    expect(await pending).toBe(reason);
  });

  it('names the provider, the URL and the socket\'s cause when the server cannot be reached, classified connection', async () => {
    const port = await closedPort();
    const provider = new OpenAiChatModelProvider({ ...config, baseUrl: `http://127.0.0.1:${port}/v1` }, { env: {} });

    const error = await failureOf(provider.respond(request()));

    expect(error).toBeInstanceOf(ModelProviderUnreachableError);
    expect(error).toMatchObject({ code: 'MODEL_PROVIDER_UNREACHABLE', provider: 'openai', url: `http://127.0.0.1:${port}/v1/chat/completions` });
    expect((error as Error).message).toBe(
      `The openai model server could not be reached at POST http://127.0.0.1:${port}/v1/chat/completions: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    // fetch's own TypeError (from another realm than the test's, so matched by name), with the socket's error.
    expect((error as Error).cause).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    expect(classifyFailure(error)).toBe('connection');
  });

  it('keeps Retry-After on a 503 too (serverError, retryable)', async () => {
    server.json(503, { error: { message: 'The server is overloaded', type: 'server_error' } }, { 'retry-after': '2' });
    const provider = new OpenAiChatModelProvider(config, { env: {} });
    const error = await failureOf(provider.respond(request()));
    expect(error).toMatchObject({ status: 503, retryAfterMs: 2000 });
    expect(classifyFailure(error)).toBe('serverError');
  });

  describe('the API key', () => {
    const KEY = 'sk-proj-local-test-key-0123456789';
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'openai-key-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the key from apiKeyFile, trimmed, and sends it as the bearer token', async () => {
      const file = join(dir, 'openai_key');
      writeFileSync(file, `  ${KEY}\n`);
      server.json(200, chatReply({ role: 'assistant', content: 'ok' }));
      await new OpenAiChatModelProvider({ ...config, apiKeyFile: file }, { env: {} }).respond(request());
      expect(server.last.headers['authorization']).toBe(`Bearer ${KEY}`);
      expect(() => new OpenAiChatModelProvider({ ...config, apiKeyFile: join(dir, 'missing') }, { env: {} })).toThrow(
        `The API key file ${join(dir, 'missing')} (provider.apiKeyFile) of the openai provider cannot be read (ENOENT)`,
      );
    });

    it('keeps the key out of an error whose body echoes it, and out of the provider when it is inspected', async () => {
      server.json(401, { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
      const provider = new OpenAiChatModelProvider({ ...config, apiKeyEnv: 'LEDGER_TEST_KEY' }, { env: { LEDGER_TEST_KEY: KEY } });
      const error = (await failureOf(provider.respond(request()))) as ModelProviderHttpError;
      expect(error.message).toContain('Incorrect API key provided: [redacted].');
      expect(`${error.message} ${error.bodyExcerpt} ${inspect(error)}`).not.toContain(KEY);
      expect(inspect(provider, { depth: 10, showHidden: true })).not.toContain(KEY);
      expect(JSON.stringify(provider)).not.toContain(KEY);
    });

    it('posts to the URL the variable named by baseUrlEnv holds, when it is set', async () => {
      server.json(200, chatReply({ role: 'assistant', content: 'ok' }));
      const provider = new OpenAiChatModelProvider(
        { ...config, baseUrl: 'https://api.openai.com/v1', baseUrlEnv: 'OPENAI_BASE_URL', apiKeyEnv: 'LEDGER_TEST_KEY' },
        { env: { OPENAI_BASE_URL: baseUrl, LEDGER_TEST_KEY: KEY } },
      );
      expect(provider.url).toBe(`${baseUrl}/chat/completions`);
      await provider.respond(request());
      expect(server.last.url).toBe('/v1/chat/completions');
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
