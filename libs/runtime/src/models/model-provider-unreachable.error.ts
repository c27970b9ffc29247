import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A model server could not be reached: the request failed before any answer
 * (refused, reset, name not found, ...). A `connection` failure (retryable).
 * Its message names the provider, the URL and the socket's cause
 * (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:11434`), not fetch's bare
 * "fetch failed"; `cause` is the error fetch threw.
 */
export class ModelProviderUnreachableError extends AgentLedgerError {
  readonly code = 'MODEL_PROVIDER_UNREACHABLE' as const;
  readonly failureClass = 'connection' as const;

  constructor(
    /** The provider's type (`openai`, a plugin's type). */
    readonly provider: string,
    /** The URL that was called. */
    readonly url: string,
    /** What went wrong underneath, as the socket said it. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${provider} model server could not be reached at POST ${url}: ${reason}`, options);
  }
}

/**
 * The innermost explanation of a network failure: the `code` and message of
 * the deepest `cause` (fetch wraps the socket's error in `TypeError('fetch failed')`).
 */
export function networkFailureReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth += 1) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  const code = (current as { code?: unknown } | null)?.code;
  const described = (current as { message?: unknown } | null)?.message;
  const message = typeof described === 'string' ? described : String(current);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
