import type { JsonObject, ModelResponse, ToolCallRequest } from '@agent-ledger/domain';
import { ModelReplyInvalidError } from '../model-reply-invalid.error';
import { isReplyObject, parseReplyJson, replyExcerpt, replyField } from '../model-reply-json';
import type { OpenAiToolNames } from './openai-tool-names';

/**
 * Maps a 2xx chat-completions reply to a {@link ModelResponse}:
 * `choices[0].message.tool_calls`, when non-empty, become tool calls (function
 * names decoded by `names`, `arguments` parsed from their JSON text: an empty
 * text is `{}`, an object given as such is accepted, as some servers send it);
 * otherwise `choices[0].message.content` is the final answer (text parts of a
 * content array are joined). The ids the model gave its calls are not kept:
 * the runtime names each call after its step.
 *
 * @throws {@link ModelReplyInvalidError} (`serverError`) for a body that is not
 *   JSON, no choice or message, a tool call without a name, arguments that are
 *   not a JSON object, or a message with neither content nor tool calls.
 */
export function fromOpenAiChatResponse(bodyText: string, names: OpenAiToolNames, url: string): ModelResponse {
  const invalid = (problem: string, cause?: unknown): ModelReplyInvalidError =>
    new ModelReplyInvalidError(problem, url, cause === undefined ? undefined : { cause });

  const body = parseReplyJson(bodyText, url);
  const choices = replyField(body, 'choices');
  if (!Array.isArray(choices) || choices.length === 0) {
    throw invalid('choices is missing or empty');
  }
  const message = replyField(choices[0], 'message');
  if (!isReplyObject(message)) {
    throw invalid('choices[0].message is missing');
  }

  const toolCalls = message['tool_calls'];
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    return {
      type: 'toolCalls',
      calls: toolCalls.map((call, index) => toToolCall(call, `choices[0].message.tool_calls[${index}]`, names, invalid)),
    };
  }
  if (toolCalls !== undefined && toolCalls !== null && !Array.isArray(toolCalls)) {
    throw invalid('choices[0].message.tool_calls is not a list');
  }

  const content = textOf(message['content']);
  if (content === undefined) {
    const reason = replyField(choices[0], 'finish_reason');
    throw invalid(
      `choices[0].message has neither content nor tool_calls${typeof reason === 'string' ? ` (finish_reason ${reason})` : ''}`,
    );
  }
  return { type: 'final', content };
}

function toToolCall(
  call: unknown,
  path: string,
  names: OpenAiToolNames,
  invalid: (problem: string, cause?: unknown) => ModelReplyInvalidError,
): ToolCallRequest {
  const fn = replyField(call, 'function');
  const name = replyField(fn, 'name');
  if (typeof name !== 'string' || name === '') {
    throw invalid(`${path}.function.name is missing`);
  }
  const raw = replyField(fn, 'arguments');
  let args: unknown;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    args = {};
  } else if (typeof raw === 'string') {
    try {
      args = JSON.parse(raw);
    } catch (error) {
      throw invalid(`${path}.function.arguments is not valid JSON (${replyExcerpt(raw)})`, error);
    }
  } else {
    args = raw;
  }
  if (!isReplyObject(args)) {
    throw invalid(`${path}.function.arguments is not a JSON object (${replyExcerpt(JSON.stringify(args))})`);
  }
  return { toolName: names.fromWire(name), arguments: args as JsonObject };
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.filter((part) => replyField(part, 'type') === 'text').map((part) => replyField(part, 'text'));
    if (parts.length > 0 && parts.every((text) => typeof text === 'string')) return parts.join('');
  }
  return undefined;
}
