import type { JsonValue } from '@agent-ledger/domain';
import type { ToolDescription } from '../../tools/tool-metadata';
import type { ConversationMessage } from '../conversation';
import type { OpenAiChatMessage, OpenAiChatRequest } from './openai-chat-wire';
import { OpenAiToolNames } from './openai-tool-names';

/** The request body of one round, and the name table to read the reply with. */
export interface MappedOpenAiChatRequest {
  readonly body: OpenAiChatRequest;
  readonly names: OpenAiToolNames;
}

/**
 * Maps a provider-neutral round to a chat-completions request.
 *
 * - system and user messages pass as they are;
 * - an assistant message keeps its text (or `null`) and its tool calls, each
 *   with the runtime's call `id`, its function name mapped by
 *   {@link OpenAiToolNames}, and its arguments as a JSON text; an empty list of
 *   calls is omitted;
 * - a tool message carries `tool_call_id` (the id of the call it answers) and
 *   its result as text: a string as it is, any other JSON as JSON text; an
 *   error result is wrapped as `{"error": <result>}` so that the model can tell
 *   it from a success (the format has no error flag);
 * - `tools` lists the offered tools, omitted when there is none.
 */
export function toOpenAiChatRequest(
  messages: readonly ConversationMessage[],
  tools: readonly ToolDescription[],
  settings: { readonly model: string; readonly temperature: number },
): MappedOpenAiChatRequest {
  const names = new OpenAiToolNames([
    ...tools.map((tool) => tool.name),
    ...messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.toolName) : [])),
  ]);
  const body: OpenAiChatRequest = {
    model: settings.model,
    messages: messages.map((message) => toOpenAiMessage(message, names)),
    ...(tools.length === 0
      ? {}
      : {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: { name: names.toWire(tool.name), description: tool.description, parameters: tool.parameters },
          })),
        }),
    temperature: settings.temperature,
    stream: false,
  };
  return { body, names };
}

function toOpenAiMessage(message: ConversationMessage, names: OpenAiToolNames): OpenAiChatMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls.length === 0
          ? {}
          : {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: names.toWire(call.toolName), arguments: JSON.stringify(call.arguments) },
              })),
            }),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: toolResultText(message.content, message.isError) };
  }
}

function toolResultText(content: JsonValue, isError: boolean): string {
  if (isError) return JSON.stringify({ error: content });
  return typeof content === 'string' ? content : JSON.stringify(content);
}
