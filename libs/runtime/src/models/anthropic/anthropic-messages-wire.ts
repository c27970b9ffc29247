/*
 * The subset of Anthropic's Messages API wire format that agent-ledger sends
 * and reads (POST {baseUrl}/v1/messages, anthropic-version 2023-06-01).
 */
import type { JsonObject } from '@agent-ledger/domain';

/** A text block, in a request or a reply. */
export interface AnthropicTextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** A tool call of the assistant: `input` is the arguments, as an object. */
export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: JsonObject;
}

/** The result of a tool call, in a user message; `is_error` marks a failed (or denied) call. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: true;
}

/** One block of a message's content. */
export type AnthropicContentBlock = AnthropicTextBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

/** One message of the request: roles alternate, the system prompt is apart. */
export interface AnthropicMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly AnthropicContentBlock[];
}

/** One offered tool; `input_schema` is the tool's JSON Schema. */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: unknown;
}

/** The request body. `system` and `tools` are omitted when empty. */
export interface AnthropicMessagesRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: string;
  readonly messages: readonly AnthropicMessage[];
  readonly tools?: readonly AnthropicTool[];
  readonly temperature: number;
}
