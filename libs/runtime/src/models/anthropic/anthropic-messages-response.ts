import type { JsonObject, ModelResponse, ToolCallRequest } from '@agent-ledger/domain';
import { ModelReplyInvalidError } from '../model-reply-invalid.error';
import { isReplyObject, parseReplyJson, replyExcerpt, replyField } from '../model-reply-json';
import { ModelReplyTruncatedError } from '../model-reply-truncated.error';
import type { OpenAiToolNames } from '../openai/openai-tool-names';

/**
 * Maps a 2xx Messages API reply to a {@link ModelResponse}: its `tool_use`
 * blocks, when there is any, become tool calls (names decoded by `names`,
 * `input` as the arguments; the ids the model gave its calls are not kept: the
 * runtime names each call after its step); otherwise its `text` blocks,
 * joined, are the final answer. Other blocks (`thinking`, ...) are ignored.
 *
 * @throws {@link ModelReplyTruncatedError} (`configuration`) when
 *   `stop_reason` is `max_tokens`: the reply was cut off.
 * @throws {@link ModelReplyInvalidError} (`serverError`) for a body that is not
 *   JSON, no `content` list, a `tool_use` block without a name or whose
 *   `input` is not an object, or neither text nor tool use.
 */
export function fromAnthropicMessagesResponse(bodyText: string, names: OpenAiToolNames, url: string, maxTokens: number): ModelResponse {
  const invalid = (problem: string, cause?: unknown): ModelReplyInvalidError =>
    new ModelReplyInvalidError(problem, url, cause === undefined ? undefined : { cause });

  const body = parseReplyJson(bodyText, url);
  const content = replyField(body, 'content');
  if (!Array.isArray(content)) {
    throw invalid('content is missing or not a list');
  }
  const stopReason = replyField(body, 'stop_reason');
  if (stopReason === 'max_tokens') {
    throw new ModelReplyTruncatedError(url, maxTokens);
  }

  const calls: ToolCallRequest[] = [];
  const texts: string[] = [];
  content.forEach((block, index) => {
    const type = replyField(block, 'type');
    if (type === 'tool_use') calls.push(toToolCall(block, `content[${index}]`, names, invalid));
    else if (type === 'text') {
      const text = replyField(block, 'text');
      if (typeof text !== 'string') throw invalid(`content[${index}].text is not a string`);
      texts.push(text);
    }
  });
  if (calls.length > 0) return { type: 'toolCalls', calls };
  if (texts.length === 0) {
    throw invalid(`content has neither text nor tool_use${typeof stopReason === 'string' ? ` (stop_reason ${stopReason})` : ''}`);
  }
  return { type: 'final', content: texts.join('') };
}

function toToolCall(
  block: unknown,
  path: string,
  names: OpenAiToolNames,
  invalid: (problem: string) => ModelReplyInvalidError,
): ToolCallRequest {
  const name = replyField(block, 'name');
  if (typeof name !== 'string' || name === '') {
    throw invalid(`${path}.name is missing`);
  }
  const input = replyField(block, 'input') ?? {};
  if (!isReplyObject(input)) {
    throw invalid(`${path}.input is not a JSON object (${replyExcerpt(JSON.stringify(input))})`);
  }
  return { toolName: names.fromWire(name), arguments: input as JsonObject };
}
