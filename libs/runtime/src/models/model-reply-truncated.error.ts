import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A model's reply was cut off at the provider's output limit (Anthropic's
 * `stop_reason: max_tokens`): a final answer would be recorded cut short, and
 * a tool call's arguments may be incomplete, so neither is used. A
 * `configuration` failure, never retried: at the same limit the model would
 * most likely be cut off again; raise the provider's `maxTokens`.
 */
export class ModelReplyTruncatedError extends AgentLedgerError {
  readonly code = 'MODEL_REPLY_TRUNCATED' as const;
  readonly failureClass = 'configuration' as const;

  constructor(
    /** The URL that was called. */
    readonly url: string,
    /** The limit the reply reached, in tokens. */
    readonly maxTokens: number,
  ) {
    super(`The model's reply to POST ${url} was cut off at ${maxTokens} tokens (stop_reason max_tokens): raise provider.maxTokens in the agents file`);
  }
}
