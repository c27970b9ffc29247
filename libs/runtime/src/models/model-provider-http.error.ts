import type { FailureClass } from '@agent-ledger/domain';
import { AgentLedgerError, classifyHttpStatus } from '@agent-ledger/domain';

/** How much of an error reply's body an error keeps, in characters. @default 500 */
export const HTTP_ERROR_BODY_EXCERPT_LENGTH = 500;

/**
 * A model server answered with an HTTP error status. Its failure class is the
 * status's (`classifyHttpStatus`): 401/403 `auth`, 429 `rateLimit`, 5xx
 * `serverError`, other 4xx `clientError`; so `classifyFailure` gives the same
 * class as for any HTTP error. A provider whose vendor gives a status its own
 * meaning passes the class instead (Anthropic's 529 `overloaded_error` is
 * `rateLimit`, like its 429).
 */
export class ModelProviderHttpError extends AgentLedgerError {
  readonly code = 'MODEL_PROVIDER_HTTP' as const;
  readonly failureClass: FailureClass;

  constructor(
    /** The HTTP status, e.g. 429. */
    readonly status: number,
    /** The URL that was called (never with credentials: those travel in a header). */
    readonly url: string,
    /** The start of the reply's body (at most {@link HTTP_ERROR_BODY_EXCERPT_LENGTH} characters), for the record. */
    readonly bodyExcerpt: string,
    /**
     * How long the server asked us to wait (its `Retry-After`, usually on 429
     * or 503), in milliseconds; `undefined` when it said nothing. A retry
     * should not come sooner.
     */
    readonly retryAfterMs: number | undefined,
    /** The server's own error message, when its body is an OpenAI-style `{ error: { message } }` (or Anthropic's). */
    serverMessage?: string,
    options: {
      /** The class, when the vendor's meaning of the status differs from `classifyHttpStatus`'s. */
      readonly failureClass?: FailureClass;
      /** The provider's type (`openai`, `anthropic`), named in the message. */
      readonly provider?: string;
    } = {},
  ) {
    super(
      `The ${options.provider === undefined ? '' : `${options.provider} `}model server answered HTTP ${status} to POST ${url}` +
        (serverMessage === undefined || serverMessage === '' ? '' : `: ${serverMessage}`) +
        (retryAfterMs === undefined ? '' : ` (retry after ${retryAfterMs} ms)`),
    );
    this.failureClass = options.failureClass ?? classifyHttpStatus(status);
  }
}
