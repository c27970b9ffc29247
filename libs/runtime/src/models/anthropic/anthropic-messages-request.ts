import type { JsonValue } from '@agent-ledger/domain';
import type { ToolDescription } from '../../tools/tool-metadata';
import type { ConversationMessage } from '../conversation';
import { OpenAiToolNames } from '../openai/openai-tool-names';
import { AnthropicToolUseIds } from './anthropic-tool-use-ids';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicMessagesRequest } from './anthropic-messages-wire';

/** The request body of one round, and the name table to read the reply with. */
export interface MappedAnthropicMessagesRequest {
  readonly body: AnthropicMessagesRequest;
  /** Tool names: Anthropic's rule is OpenAI's (`^[a-zA-Z0-9_-]{1,64}$`), so the same mapping (`files.read` <-> `files__read`). */
  readonly names: OpenAiToolNames;
}

/**
 * Maps a provider-neutral round to a Messages API request.
 *
 * - system messages become `system` (joined by a blank line; omitted when none);
 * - a user message is a `text` block;
 * - an assistant message is its text (when not empty) and a `tool_use` block
 *   per call, with the call's id (mapped by {@link AnthropicToolUseIds}), its
 *   name (mapped as for OpenAI) and its arguments as `input`; an assistant
 *   message with neither is left out (the API refuses empty content);
 * - the results of a round's calls are `tool_result` blocks (`tool_use_id`,
 *   the result as text: a string as it is, other JSON as JSON text;
 *   `is_error: true` for a failed call, which includes a call a person
 *   denied), in one user message;
 * - consecutive messages of one role are merged into one message, as the API
 *   wants roles to alternate;
 * - `tools` lists the offered tools (`input_schema`: their parameters),
 *   omitted when there is none.
 */
export function toAnthropicMessagesRequest(
  messages: readonly ConversationMessage[],
  tools: readonly ToolDescription[],
  settings: { readonly model: string; readonly maxTokens: number; readonly temperature: number },
): MappedAnthropicMessagesRequest {
  const names = new OpenAiToolNames([
    ...tools.map((tool) => tool.name),
    ...messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.toolName) : [])),
  ]);
  const ids = new AnthropicToolUseIds();
  const system: string[] = [];
  const mapped: { role: 'user' | 'assistant'; content: AnthropicContentBlock[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: readonly AnthropicContentBlock[]): void => {
    if (blocks.length === 0) return;
    const last = mapped[mapped.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else mapped.push({ role, content: [...blocks] });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        push('user', [{ type: 'text', text: message.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...(message.content === null || message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
          ...message.toolCalls.map((call) => ({ type: 'tool_use' as const, id: ids.toWire(call.id), name: names.toWire(call.toolName), input: call.arguments })),
        ]);
        break;
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: ids.toWire(message.toolCallId),
            content: resultText(message.content),
            ...(message.isError ? { is_error: true as const } : {}),
          },
        ]);
        break;
    }
  }
  const body: AnthropicMessagesRequest = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    ...(system.length === 0 ? {} : { system: system.join('\n\n') }),
    messages: mapped as readonly AnthropicMessage[],
    ...(tools.length === 0
      ? {}
      : { tools: tools.map((tool) => ({ name: names.toWire(tool.name), description: tool.description, input_schema: tool.parameters })) }),
    temperature: settings.temperature,
  };
  return { body, names };
}

function resultText(content: JsonValue): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}
