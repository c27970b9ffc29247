import type { ModelResponse } from '@agent-ledger/domain';
import { ConfigurationError } from '@agent-ledger/domain';
import type { ModelProviderConfig } from '../../agents/agent-definition';
import { DEFAULT_MODEL_TIMEOUT_SECONDS, DEFAULT_TEMPERATURE } from '../../agents/agent-limits';
import { formatConfigIssue } from '../../agents/agents-config.error';
import { ConfigReader } from '../../agents/config-reader';
import { validateOpenAiProviderConfig } from '../../agents/model-provider-config-validation';
import type { ModelProvider, ModelRequest } from '../model-provider';
import { HTTP_ERROR_BODY_EXCERPT_LENGTH, ModelProviderHttpError } from '../model-provider-http.error';
import { ModelProviderTimeoutError } from '../model-provider-timeout.error';
import { ModelProviderUnreachableError, networkFailureReason } from '../model-provider-unreachable.error';
import { parseRetryAfter } from '../retry-after';
import { toOpenAiChatRequest } from './openai-chat-request';
import { fromOpenAiChatResponse } from './openai-chat-response';

/** The configuration of an OpenAI-compatible provider. */
export type OpenAiProviderConfig = Extract<ModelProviderConfig, { type: 'openai' }>;

/** What the OpenAI-compatible provider takes from its surroundings; tests replace them. */
export interface OpenAiChatModelProviderOptions {
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Where `apiKeyEnv` is looked up. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Milliseconds since the epoch, to read a `Retry-After` date. @default Date.now */
  readonly now?: () => number;
}

/**
 * A model provider for any OpenAI-compatible chat-completions server (OpenAI,
 * llama.cpp's server, vLLM, Ollama's `/v1`): one POST
 * `{baseUrl}/chat/completions` per round, with the conversation, the offered
 * tools (names mapped by `OpenAiToolNames`: `files.read` is sent as
 * `files__read`) and `temperature`.
 *
 * - The API key is read once, at construction, from the environment variable
 *   named by `apiKeyEnv` and sent as `Authorization: Bearer <key>`; without
 *   `apiKeyEnv` no header is sent (local servers).
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
  private readonly headers: Readonly<Record<string, string>>;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  /**
   * @throws ConfigurationError when the configuration is invalid (each field
   *   named, e.g. `provider.baseUrl must be an http(s) URL`) or when the
   *   environment variable named by `apiKeyEnv` is not set.
   */
  constructor(config: OpenAiProviderConfig, options: OpenAiChatModelProviderOptions = {}) {
    const reader = new ConfigReader();
    const valid = validateOpenAiProviderConfig(config, 'provider', reader);
    if (valid === undefined || valid.type !== 'openai') {
      throw new ConfigurationError(`Invalid openai provider configuration: ${reader.issues.map(formatConfigIssue).join('; ')}`);
    }
    const env = options.env ?? process.env;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (valid.apiKeyEnv !== undefined) {
      const key = env[valid.apiKeyEnv];
      if (key === undefined || key.trim() === '') {
        throw new ConfigurationError(
          `The environment variable ${valid.apiKeyEnv} (provider.apiKeyEnv) is not set: it must hold the API key of ${valid.baseUrl}`,
        );
      }
      headers['authorization'] = `Bearer ${key.trim()}`;
    }
    this.url = `${valid.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.model = valid.model;
    this.temperature = valid.temperature ?? DEFAULT_TEMPERATURE;
    this.timeoutMs = Math.round((valid.timeoutSeconds ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000);
    this.headers = Object.freeze(headers);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  async respond(request: ModelRequest): Promise<ModelResponse> {
    request.signal.throwIfAborted();
    const { body, names } = toOpenAiChatRequest(request.messages, request.tools, {
      model: this.model,
      temperature: this.temperature,
    });
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([request.signal, timeout]);
    try {
      const reply = await this.fetch(this.url, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify(body),
        signal,
      });
      const text = await reply.text();
      if (!reply.ok) {
        throw new ModelProviderHttpError(
          reply.status,
          this.url,
          text.slice(0, HTTP_ERROR_BODY_EXCERPT_LENGTH),
          parseRetryAfter(reply.headers.get('retry-after'), this.now()),
          serverMessageOf(text),
        );
      }
      return fromOpenAiChatResponse(text, names, this.url);
    } catch (error) {
      if (timeout.aborted && !request.signal.aborted && error === timeout.reason) {
        throw new ModelProviderTimeoutError(this.url, this.timeoutMs, { cause: error });
      }
      // fetch's own failure to reach the server (not an abort, not an answer): named, with the socket's cause.
      if (isFetchNetworkFailure(error) && !signal.aborted) throw new ModelProviderUnreachableError('openai', this.url, networkFailureReason(error), { cause: error });
      throw error;
    }
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

/**
 * fetch's failure to reach the server: a `TypeError` with the socket's error
 * as its `cause`. Matched by shape, not `instanceof`: fetch's errors may come
 * from another realm (Node's own, under a test runner's sandbox).
 */
function isFetchNetworkFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, cause } = error as { name?: unknown; cause?: unknown };
  return name === 'TypeError' && cause !== undefined && cause !== null;
}
