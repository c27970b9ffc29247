import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A model server answered 2xx, but its reply breaks the protocol: a body that
 * is not JSON, no choice, a tool call without a name, tool-call `arguments`
 * that are not a JSON object, no content and no tool calls.
 *
 * It is a `serverError`, retryable: the remote side failed to produce a usable
 * answer, as with a 5xx, and a model samples afresh when asked again. The
 * retry budget bounds it: a model that always answers this way ends its
 * queued run with `RETRIES_EXHAUSTED`.
 */
export class ModelReplyInvalidError extends AgentLedgerError {
  readonly code = 'MODEL_REPLY_INVALID' as const;
  readonly failureClass = 'serverError' as const;

  constructor(
    /** What is wrong with the reply, e.g. `choices[0].message.tool_calls[1].function.arguments is not valid JSON`. */
    readonly problem: string,
    /** The URL that was called. */
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(`The model server's reply to POST ${url} is unusable: ${problem}`, options);
  }
}
