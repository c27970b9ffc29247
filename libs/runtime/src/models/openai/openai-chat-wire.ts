/*
 * The subset of the OpenAI chat-completions wire format that agent-ledger
 * sends and reads (POST {baseUrl}/chat/completions). OpenAI, llama.cpp's
 * server, vLLM and Ollama's /v1 all speak it.
 */

/** One tool call in an assistant message. `arguments` is a JSON text. */
export interface OpenAiToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** One message of the request. */
export type OpenAiChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly OpenAiToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** One offered tool. */
export interface OpenAiTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown };
}

/** The request body. `tools` is omitted when no tool is offered (some servers refuse an empty list). */
export interface OpenAiChatRequest {
  readonly model: string;
  readonly messages: readonly OpenAiChatMessage[];
  readonly tools?: readonly OpenAiTool[];
  readonly temperature: number;
  readonly stream: false;
}
