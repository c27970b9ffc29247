import { classifyFailure, isRetryable } from '@agent-ledger/domain';
import { ModelReplyInvalidError } from '../model-reply-invalid.error';
import { ModelReplyTruncatedError } from '../model-reply-truncated.error';
import { OpenAiToolNames } from '../openai/openai-tool-names';
import { fromAnthropicMessagesResponse } from './anthropic-messages-response';

const names = new OpenAiToolNames(['files.read', 'clock.now']);
const URL = 'https://api.anthropic.com/v1/messages';

/** A reply in the documented shape. */
function message(content: unknown[], stopReason: string): string {
  return JSON.stringify({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  });
}

function thrown(text: string): unknown {
  try {
    fromAnthropicMessagesResponse(text, names, URL, 1024);
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('fromAnthropicMessagesResponse', () => {
  it('maps tool_use blocks to tool calls (names decoded, input as arguments), ignoring the text beside them', () => {
    const text = message(
      [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_01', name: 'files__read', input: { path: 'notes.txt' } },
        { type: 'tool_use', id: 'toolu_02', name: 'clock__now', input: {} },
      ],
      'tool_use',
    );
    expect(fromAnthropicMessagesResponse(text, names, URL, 1024)).toEqual({
      type: 'toolCalls',
      calls: [
        { toolName: 'files.read', arguments: { path: 'notes.txt' } },
        { toolName: 'clock.now', arguments: {} },
      ],
    });
  });

  it('maps text blocks to the final answer, joined; other blocks are ignored', () => {
    const text = message([{ type: 'thinking', thinking: '...', signature: 's' }, { type: 'text', text: 'It is ' }, { type: 'text', text: 'noon.' }], 'end_turn');
    expect(fromAnthropicMessagesResponse(text, names, URL, 1024)).toEqual({ type: 'final', content: 'It is noon.' });
  });

  it('refuses a reply cut off at max_tokens as ModelReplyTruncatedError, a configuration failure (never retried)', () => {
    const error = thrown(message([{ type: 'text', text: 'It is no' }], 'max_tokens'));
    expect(error).toBeInstanceOf(ModelReplyTruncatedError);
    expect((error as Error).message).toBe(`The model's reply to POST ${URL} was cut off at 1024 tokens (stop_reason max_tokens): raise provider.maxTokens in the agents file`);
    expect(classifyFailure(error)).toBe('configuration');
    expect(isRetryable(classifyFailure(error))).toBe(false);
  });

  it.each([
    ['<html>gateway</html>', /the body is not JSON/],
    [JSON.stringify({ type: 'message' }), /content is missing or not a list/],
    [message([], 'end_turn'), /content has neither text nor tool_use \(stop_reason end_turn\)/],
    [message([{ type: 'tool_use', id: 't', input: {} }], 'tool_use'), /content\[0\]\.name is missing/],
    [message([{ type: 'tool_use', id: 't', name: 'files__read', input: 'path' }], 'tool_use'), /content\[0\]\.input is not a JSON object/],
    [message([{ type: 'text', text: 3 }], 'end_turn'), /content\[0\]\.text is not a string/],
  ])('refuses %s as ModelReplyInvalidError (serverError)', (text, problem) => {
    const error = thrown(text);
    expect(error).toBeInstanceOf(ModelReplyInvalidError);
    expect((error as ModelReplyInvalidError).problem).toMatch(problem);
    expect(classifyFailure(error)).toBe('serverError');
  });
});
