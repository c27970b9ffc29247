import type { ModelResponse } from '@agent-ledger/domain';
import type { ToolDescription } from '../tools/tool-metadata';
import type { ConversationMessage } from './conversation';

/** One model round's request. */
export interface ModelRequest {
  readonly runId: string;
  readonly agent: string;
  /** The round, from 0. */
  readonly round: number;
  /** The whole conversation so far, starting with the agent's instructions (system) and the run's input (user). */
  readonly messages: readonly ConversationMessage[];
  /** The tools offered to the model in this round. */
  readonly tools: readonly ToolDescription[];
  /** Fired on cancellation or a lost lease. */
  readonly signal: AbortSignal;
}

/**
 * The model-provider port: given the conversation and the offered tools,
 * return a final answer or tool calls. Errors are thrown as they come (an HTTP
 * error with its `status`, a network error with its `code`); the runtime
 * classifies them with the one failure classifier.
 */
export interface ModelProvider {
  respond(request: ModelRequest): Promise<ModelResponse>;
}
