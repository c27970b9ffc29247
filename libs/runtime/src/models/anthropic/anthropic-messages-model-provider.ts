import type { FailureClass, ModelResponse } from '@agent-ledger/domain';
import { ConfigurationError } from '@agent-ledger/domain';
import type { AnthropicModelProviderConfig } from '../../agents/agent-definition';
import {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  DEFAULT_TEMPERATURE,
} from '../../agents/agent-limits';
import { formatConfigIssue } from '../../agents/agents-config.error';
import { ConfigReader } from '../../agents/config-reader';
import { validateAnthropicProviderConfig } from '../../agents/model-provider-config-validation';
import { readApiKey, redactSecret } from '../api-key';
import { effectiveBaseUrl } from '../base-url';
import type { HttpModelProviderOptions } from '../model-http-call';
import { postModelRequest } from '../model-http-call';
import type { ModelProvider, ModelRequest } from '../model-provider';
import { HTTP_ERROR_BODY_EXCERPT_LENGTH, ModelProviderHttpError } from '../model-provider-http.error';
import { parseRetryAfter } from '../retry-after';
import { toAnthropicMessagesRequest } from './anthropic-messages-request';
import { fromAnthropicMessagesResponse } from './anthropic-messages-response';

/** The variable an `anthropic` provider reads its key from when it names neither `apiKeyEnv` nor `apiKeyFile`. */
export const ANTHROPIC_DEFAULT_API_KEY_ENV = 'ANTHROPIC_API_KEY';

/** The `anthropic-version` header sent with every request. */
export const ANTHROPIC_API_VERSION = '2023-06-01';

/**
 * A model provider for Anthropic's Messages API, with tool use: one POST
 * `{baseUrl}/v1/messages` per round (`baseUrl` defaults to
 * `https://api.anthropic.com`), with the conversation (the system prompt
 * apart, tool calls as `tool_use` blocks, their results as `tool_result`
 * blocks), the offered tools, `max_tokens` and `temperature`.
 *
 * - The API key is read once, at construction, from the environment variable
 *   named by `apiKeyEnv` (default `ANTHROPIC_API_KEY`) or the file named by
 *   `apiKeyFile`, and sent as `x-api-key`, with `anthropic-version:
 *   2023-06-01`. The key is in no message: an error body that echoes it is
 *   kept with `[redacted]` in its place.
 * - A call is aborted by the request's `signal` (rejecting with its reason) or
 *   after `timeoutSeconds` (`ModelProviderTimeoutError`, `connection`); a
 *   server that cannot be reached is `ModelProviderUnreachableError`
 *   (`connection`), naming the provider, the URL and the cause.
 * - A non-2xx reply throws {@link ModelProviderHttpError} with the server's
 *   `error.type` and `error.message` (`{"type":"error","error":{...}}`) and
 *   `retryAfterMs` from `Retry-After`: 429 and 529 (`overloaded_error`) are
 *   `rateLimit`, 401/403 `auth`, 5xx `serverError`, other 4xx `clientError`.
 * - A 2xx reply cut off at `maxTokens` throws `ModelReplyTruncatedError`
 *   (`configuration`); an unusable one `ModelReplyInvalidError` (`serverError`).
 *
 * It keeps no state between rounds and never retries: retries are the
 * runtime's decision, through the one failure classifier.
 */
export class AnthropicMessagesModelProvider implements ModelProvider {
  /** `{baseUrl}/v1/messages`. */
  readonly url: string;
  private readonly model: string;
  private readonly maxTokens: number;
  private readonly temperature: number;
  private readonly timeoutMs: number;
  private readonly headers: () => Readonly<Record<string, string>>;
  private readonly redact: (text: string) => string;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  /**
   * @throws ConfigurationError when the configuration is invalid (each field
   *   named), when the environment variable that holds the key is not set,
   *   when the key file cannot be read or is empty, or when `baseUrlEnv`'s
   *   value is not a URL.
   */
  constructor(config: AnthropicModelProviderConfig, options: HttpModelProviderOptions = {}) {
    const reader = new ConfigReader();
    const valid = validateAnthropicProviderConfig(config, 'provider', reader);
    if (valid === undefined || valid.type !== 'anthropic') {
      throw new ConfigurationError(`Invalid anthropic provider configuration: ${reader.issues.map(formatConfigIssue).join('; ')}`);
    }
    const env = options.env ?? process.env;
    const baseUrl = effectiveBaseUrl(valid.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL, valid.baseUrlEnv, env, '/v1/messages');
    const key = readApiKey({ source: valid, defaultEnv: ANTHROPIC_DEFAULT_API_KEY_ENV, provider: 'anthropic', url: baseUrl }, env) as string;
    const headers = Object.freeze({
      'content-type': 'application/json',
      accept: 'application/json',
      'anthropic-version': ANTHROPIC_API_VERSION,
      'x-api-key': key,
    });
    // Behind closures, not fields: the provider, inspected or logged, shows no key.
    this.headers = () => headers;
    this.redact = (text) => redactSecret(text, key);
    this.url = `${baseUrl}/v1/messages`;
    this.model = valid.model;
    this.maxTokens = valid.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
    this.temperature = valid.temperature ?? DEFAULT_TEMPERATURE;
    this.timeoutMs = Math.round((valid.timeoutSeconds ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  async respond(request: ModelRequest): Promise<ModelResponse> {
    request.signal.throwIfAborted();
    const { body, names } = toAnthropicMessagesRequest(request.messages, request.tools, {
      model: this.model,
      maxTokens: this.maxTokens,
      temperature: this.temperature,
    });
    const reply = await postModelRequest({
      fetch: this.fetch,
      provider: 'anthropic',
      url: this.url,
      headers: this.headers(),
      body,
      signal: request.signal,
      timeoutMs: this.timeoutMs,
    });
    const text = this.redact(reply.text);
    if (!reply.ok) {
      const error = anthropicErrorOf(text);
      throw new ModelProviderHttpError(
        reply.status,
        this.url,
        text.slice(0, HTTP_ERROR_BODY_EXCERPT_LENGTH),
        parseRetryAfter(reply.headers.get('retry-after'), this.now()),
        error?.message,
        { provider: 'anthropic', failureClass: anthropicFailureClass(reply.status, error?.type) },
      );
    }
    return fromAnthropicMessagesResponse(text, names, this.url, this.maxTokens);
  }
}

/**
 * The class of an Anthropic error reply: 529 (`overloaded_error`, the API
 * is overloaded) is `rateLimit` like 429: the server asks us to come back
 * later, and `Retry-After` says when. Any other status is classified as
 * usual (`undefined`).
 */
function anthropicFailureClass(status: number, type: string | undefined): FailureClass | undefined {
  return status === 529 || type === 'overloaded_error' ? 'rateLimit' : undefined;
}

/** `error.type` and `"<type>: <message>"` of Anthropic's error body `{"type":"error","error":{"type","message"}}`, if it is one. */
function anthropicErrorOf(text: string): { readonly type: string | undefined; readonly message: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, message } = error as { type?: unknown; message?: unknown };
  const kind = typeof type === 'string' ? type : undefined;
  const said = typeof message === 'string' ? message : undefined;
  if (kind === undefined && said === undefined) return undefined;
  return { type: kind, message: [kind, said].filter((part) => part !== undefined).join(': ').slice(0, HTTP_ERROR_BODY_EXCERPT_LENGTH) };
}
