import type { ModelResponse } from '@agent-ledger/domain';
import { ConfigurationError } from '@agent-ledger/domain';
import type { OpenAiModelProviderConfig } from '../../agents/agent-definition';
import { DEFAULT_MODEL_TIMEOUT_SECONDS, DEFAULT_TEMPERATURE } from '../../agents/agent-limits';
import { formatConfigIssue } from '../../agents/agents-config.error';
import { ConfigReader } from '../../agents/config-reader';
import { validateOpenAiProviderConfig } from '../../agents/model-provider-config-validation';
import { readApiKey, redactSecret } from '../api-key';
import { effectiveBaseUrl } from '../base-url';
import type { ModelProvider, ModelRequest } from '../model-provider';
import { HTTP_ERROR_BODY_EXCERPT_LENGTH, ModelProviderHttpError } from '../model-provider-http.error';
import type { HttpModelProviderOptions } from '../model-http-call';
import { postModelRequest } from '../model-http-call';
import { parseRetryAfter } from '../retry-after';
import { toOpenAiChatRequest } from './openai-chat-request';
import { fromOpenAiChatResponse } from './openai-chat-response';

/** The configuration of an OpenAI-compatible provider. */
export type OpenAiProviderConfig = OpenAiModelProviderConfig;

/** @deprecated The options of every HTTP provider: {@link HttpModelProviderOptions}. */
export type OpenAiChatModelProviderOptions = HttpModelProviderOptions;

/** The variable an `openai` provider whose URL is OpenAI's own (`api.openai.com`) reads its key from when it names none. */
export const OPENAI_DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';

/**
 * A model provider for any OpenAI-compatible chat-completions server (OpenAI,
 * llama.cpp's server, vLLM, Ollama's `/v1`): one POST
 * `{baseUrl}/chat/completions` per round, with the conversation, the offered
 * tools (names mapped by `OpenAiToolNames`: `files.read` is sent as
 * `files__read`) and `temperature`.
 *
 * - The API key is read once, at construction, from the environment variable
 *   named by `apiKeyEnv` or the file named by `apiKeyFile`, and sent as
 *   `Authorization: Bearer <key>`; with neither, OpenAI's own URL
 *   (`api.openai.com`) reads `OPENAI_API_KEY`, and any other sends no header
 *   (local servers). The key is in no message: an error body that echoes it
 *   is kept with `[redacted]` in its place.
 * - `baseUrlEnv` names a variable that, when set, replaces `baseUrl`.
 * - A call is aborted by the request's `signal` (cancellation, lost lease:
 *   rejects with the signal's reason) or after `timeoutSeconds`
 *   ({@link ModelProviderTimeoutError}, `connection`).
 * - A non-2xx reply throws {@link ModelProviderHttpError}, classified by its
 *   status, with `retryAfterMs` from `Retry-After`; an unusable 2xx reply
 *   throws `ModelReplyInvalidError` (`serverError`); a network failure
 *   throws {@link ModelProviderUnreachableError} (`connection`), naming the
 *   provider, the URL and the socket's cause (e.g. `ECONNREFUSED`), with
 *   fetch's `TypeError('fetch failed')` as its `cause`.
 *
 * It keeps no state between rounds and never retries: retries are the
 * runtime's decision, through the one failure classifier.
 */
export class OpenAiChatModelProvider implements ModelProvider {
  /** `{baseUrl}/chat/completions`, without a doubled slash. */
  readonly url: string;
  private readonly model: string;
  private readonly temperature: number;
  private readonly timeoutMs: number;
  private readonly headers: () => Readonly<Record<string, string>>;
  private readonly redact: (text: string) => string;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  /**
   * @throws ConfigurationError when the configuration is invalid (each field
   *   named, e.g. `provider.baseUrl must be an http(s) URL`), when the
   *   environment variable that holds the key is not set, when the key file
   *   cannot be read or is empty, or when `baseUrlEnv`'s value is not a URL.
   */
  constructor(config: OpenAiProviderConfig, options: HttpModelProviderOptions = {}) {
    const reader = new ConfigReader();
    const valid = validateOpenAiProviderConfig(config, 'provider', reader);
    if (valid === undefined || valid.type !== 'openai') {
      throw new ConfigurationError(`Invalid openai provider configuration: ${reader.issues.map(formatConfigIssue).join('; ')}`);
    }
    const env = options.env ?? process.env;
    const baseUrl = effectiveBaseUrl(valid.baseUrl, valid.baseUrlEnv, env, '/chat/completions');
    const key = readApiKey(
      { source: valid, defaultEnv: new URL(baseUrl).hostname === 'api.openai.com' ? OPENAI_DEFAULT_API_KEY_ENV : undefined, provider: 'openai', url: baseUrl },
      env,
    );
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
    const frozen = Object.freeze(headers);
    // Behind closures, not fields: the provider, inspected or logged, shows no key.
    this.headers = () => frozen;
    this.redact = (text) => redactSecret(text, key);
    this.url = `${baseUrl}/chat/completions`;
    this.model = valid.model;
    this.temperature = valid.temperature ?? DEFAULT_TEMPERATURE;
    this.timeoutMs = Math.round((valid.timeoutSeconds ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  async respond(request: ModelRequest): Promise<ModelResponse> {
    request.signal.throwIfAborted();
    const { body, names } = toOpenAiChatRequest(request.messages, request.tools, {
      model: this.model,
      temperature: this.temperature,
    });
    const reply = await postModelRequest({
      fetch: this.fetch,
      provider: 'openai',
      url: this.url,
      headers: this.headers(),
      body,
      signal: request.signal,
      timeoutMs: this.timeoutMs,
    });
    const text = this.redact(reply.text);
    if (!reply.ok) {
      throw new ModelProviderHttpError(
        reply.status,
        this.url,
        text.slice(0, HTTP_ERROR_BODY_EXCERPT_LENGTH),
        parseRetryAfter(reply.headers.get('retry-after'), this.now()),
        serverMessageOf(text),
        { provider: 'openai' },
      );
    }
    return fromOpenAiChatResponse(text, names, this.url);
  }
}

/** The `error.message` of an OpenAI-style error body, if it is one. */
function serverMessageOf(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    if (typeof error === 'string') return error.slice(0, HTTP_ERROR_BODY_EXCERPT_LENGTH);
    const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
    return typeof message === 'string' ? message.slice(0, HTTP_ERROR_BODY_EXCERPT_LENGTH) : undefined;
  } catch {
    return undefined;
  }
}
