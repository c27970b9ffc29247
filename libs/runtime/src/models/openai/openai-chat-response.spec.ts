import { classifyFailure } from '@agent-ledger/domain';
import { ModelReplyInvalidError } from '../model-reply-invalid.error';
import { fromOpenAiChatResponse } from './openai-chat-response';
import { OpenAiToolNames } from './openai-tool-names';

const names = new OpenAiToolNames(['files.read', 'files.write']);
const url = 'http://127.0.0.1/v1/chat/completions';

function reply(message: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message, ...extra }] });
}

function invalid(body: string): ModelReplyInvalidError {
  try {
    fromOpenAiChatResponse(body, names, url);
  } catch (error) {
    expect(error).toBeInstanceOf(ModelReplyInvalidError);
    return error as ModelReplyInvalidError;
  }
  throw new Error('the reply was accepted');
}

describe('fromOpenAiChatResponse', () => {
  it('maps tool calls, decoding names and parsing arguments', () => {
    const body = reply({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'files__read', arguments: '{"path":"in.txt"}' } },
        { id: 'call_2', type: 'function', function: { name: 'files__write', arguments: '{"path":"out.txt","content":"x"}' } },
      ],
    });
    expect(fromOpenAiChatResponse(body, names, url)).toEqual({
      type: 'toolCalls',
      calls: [
        { toolName: 'files.read', arguments: { path: 'in.txt' } },
        { toolName: 'files.write', arguments: { path: 'out.txt', content: 'x' } },
      ],
    });
  });

  it('reads empty arguments as {} and accepts arguments sent as an object', () => {
    const body = reply({
      role: 'assistant',
      tool_calls: [
        { function: { name: 'files__read', arguments: '' } },
        { function: { name: 'files__read', arguments: { path: 'p' } } },
      ],
    });
    expect(fromOpenAiChatResponse(body, names, url)).toEqual({
      type: 'toolCalls',
      calls: [
        { toolName: 'files.read', arguments: {} },
        { toolName: 'files.read', arguments: { path: 'p' } },
      ],
    });
  });

  it('maps content to a final answer when there is no tool call', () => {
    expect(fromOpenAiChatResponse(reply({ role: 'assistant', content: 'It is noon.', tool_calls: [] }), names, url)).toEqual({
      type: 'final',
      content: 'It is noon.',
    });
  });

  it('joins the text parts of a content array', () => {
    const body = reply({ role: 'assistant', content: [{ type: 'text', text: 'It is ' }, { type: 'text', text: 'noon.' }] });
    expect(fromOpenAiChatResponse(body, names, url)).toEqual({ type: 'final', content: 'It is noon.' });
  });

  it('accepts an empty final answer', () => {
    expect(fromOpenAiChatResponse(reply({ role: 'assistant', content: '' }), names, url)).toEqual({ type: 'final', content: '' });
  });

  describe('refuses an unusable reply as ModelReplyInvalidError (serverError)', () => {
    it('malformed JSON arguments', () => {
      const error = invalid(reply({ role: 'assistant', tool_calls: [{ function: { name: 'files__read', arguments: '{"path": "in.txt"' } }] }));
      expect(error.problem).toMatch(/^choices\[0\]\.message\.tool_calls\[0\]\.function\.arguments is not valid JSON/);
      expect(error.cause).toBeInstanceOf(SyntaxError);
      expect(classifyFailure(error)).toBe('serverError');
    });

    it('arguments that are not an object', () => {
      expect(invalid(reply({ role: 'assistant', tool_calls: [{ function: { name: 'files__read', arguments: '["in.txt"]' } }] })).problem).toMatch(
        /tool_calls\[0\]\.function\.arguments is not a JSON object/,
      );
    });

    it('a tool call without a name', () => {
      expect(invalid(reply({ role: 'assistant', tool_calls: [{ function: { arguments: '{}' } }] })).problem).toBe(
        'choices[0].message.tool_calls[0].function.name is missing',
      );
    });

    it('a body that is not JSON', () => {
      expect(invalid('<html>Bad gateway</html>').problem).toMatch(/^the body is not JSON \("<html>Bad gateway<\/html>"\)/);
    });

    it('no choices', () => {
      expect(invalid(JSON.stringify({ choices: [] })).problem).toBe('choices is missing or empty');
      expect(invalid(JSON.stringify({ error: 'x' })).problem).toBe('choices is missing or empty');
    });

    it('no message', () => {
      expect(invalid(JSON.stringify({ choices: [{ index: 0 }] })).problem).toBe('choices[0].message is missing');
    });

    it('neither content nor tool calls, naming the finish reason', () => {
      expect(invalid(reply({ role: 'assistant', content: null }, { finish_reason: 'length' })).problem).toBe(
        'choices[0].message has neither content nor tool_calls (finish_reason length)',
      );
    });

    it('tool_calls that is not a list', () => {
      expect(invalid(reply({ role: 'assistant', content: 'x', tool_calls: { name: 'x' } })).problem).toBe(
        'choices[0].message.tool_calls is not a list',
      );
    });
  });
});
