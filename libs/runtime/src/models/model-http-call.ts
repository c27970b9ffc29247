import { deadlineSignal } from '../clock/deadline-signal';
import { ModelProviderTimeoutError } from './model-provider-timeout.error';
import { ModelProviderUnreachableError, networkFailureReason } from './model-provider-unreachable.error';

/** What an HTTP model provider (OpenAI-compatible, Anthropic) takes from its surroundings; tests replace them. */
export interface HttpModelProviderOptions {
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Where `apiKeyEnv` and `baseUrlEnv` are looked up. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Milliseconds since the epoch, to read a `Retry-After` date. @default Date.now */
  readonly now?: () => number;
}

/** One POST of a model provider. */
export interface ModelHttpCall {
  readonly fetch: typeof fetch;
  /** The provider's type (`openai`, `anthropic`), for messages. */
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body: unknown;
  /** The request's signal: cancellation, a lost lease. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

/** What the server answered: its status, headers and whole body as text. */
export interface ModelHttpReply {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * POSTs a model request and reads the whole answer, whatever its status.
 * The call is aborted by `signal` (rejecting with the signal's reason) or
 * after `timeoutMs` ({@link ModelProviderTimeoutError}); a server that cannot
 * be reached is a {@link ModelProviderUnreachableError} naming the provider,
 * the URL and the socket's cause.
 */
export async function postModelRequest(call: ModelHttpCall): Promise<ModelHttpReply> {
  call.signal.throwIfAborted();
  const deadline = deadlineSignal(call.signal, call.timeoutMs);
  const { signal } = deadline;
  try {
    const reply = await call.fetch(call.url, { method: 'POST', headers: call.headers, body: JSON.stringify(call.body), signal });
    const text = await reply.text();
    return { status: reply.status, ok: reply.ok, headers: reply.headers, text };
  } catch (error) {
    if (deadline.timedOut && !call.signal.aborted && error === signal.reason) {
      throw new ModelProviderTimeoutError(call.url, call.timeoutMs, { cause: error, provider: call.provider });
    }
    // fetch's own failure to reach the server (not an abort, not an answer): named, with the socket's cause.
    if (isFetchNetworkFailure(error) && !signal.aborted) {
      throw new ModelProviderUnreachableError(call.provider, call.url, networkFailureReason(error), { cause: error });
    }
    throw error;
  } finally {
    deadline.dispose();
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
