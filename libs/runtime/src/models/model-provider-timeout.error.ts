import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A model call took longer than the provider's timeout and was aborted. A
 * `connection` failure (retryable), like any network timeout; its `cause` is
 * the `TimeoutError` of the aborted request.
 */
export class ModelProviderTimeoutError extends AgentLedgerError {
  readonly code = 'MODEL_PROVIDER_TIMEOUT' as const;
  readonly failureClass = 'connection' as const;

  constructor(
    /** The URL that was called. */
    readonly url: string,
    /** The timeout that passed, in milliseconds. */
    readonly timeoutMs: number,
    options?: {
      cause?: unknown;
      /** The provider's type (`openai`, `anthropic`), named in the message. */
      provider?: string;
    },
  ) {
    super(`The ${options?.provider === undefined ? '' : `${options.provider} `}model server did not answer POST ${url} within ${timeoutMs} ms`, { cause: options?.cause });
  }
}
