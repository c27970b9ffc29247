import type { ConversationMessage } from '../conversation';
import { toOpenAiChatRequest } from './openai-chat-request';

const settings = { model: 'llama3.1', temperature: 0 };

describe('toOpenAiChatRequest', () => {
  const conversation: ConversationMessage[] = [
    { role: 'system', content: 'You are a clerk.' },
    { role: 'user', content: 'Read in.txt' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'call-r0-0', toolName: 'files.read', arguments: { path: 'in.txt' } }] },
    { role: 'tool', toolCallId: 'call-r0-0', toolName: 'files.read', content: 'hello', isError: false },
    { role: 'assistant', content: 'Reading more.', toolCalls: [{ id: 'call-r1-0', toolName: 'files.list', arguments: {} }] },
    { role: 'tool', toolCallId: 'call-r1-0', toolName: 'files.list', content: ['a', 'b'], isError: false },
    { role: 'assistant', content: 'Thinking', toolCalls: [] },
  ];

  it('maps every message role, echoing the call ids', () => {
    const { body } = toOpenAiChatRequest(conversation, [], settings);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a clerk.' },
      { role: 'user', content: 'Read in.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call-r0-0', type: 'function', function: { name: 'files__read', arguments: '{"path":"in.txt"}' } }],
      },
      { role: 'tool', tool_call_id: 'call-r0-0', content: 'hello' },
      {
        role: 'assistant',
        content: 'Reading more.',
        tool_calls: [{ id: 'call-r1-0', type: 'function', function: { name: 'files__list', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call-r1-0', content: '["a","b"]' },
      { role: 'assistant', content: 'Thinking' },
    ]);
  });

  it('wraps an error result so the model can tell it from a success', () => {
    const { body } = toOpenAiChatRequest(
      [{ role: 'tool', toolCallId: 'c', toolName: 'files.read', content: 'ENOENT: no such file', isError: true }],
      [],
      settings,
    );
    expect(body.messages[0]).toEqual({ role: 'tool', tool_call_id: 'c', content: '{"error":"ENOENT: no such file"}' });
  });

  it('offers the tools as functions with mapped names, and sets model, temperature and stream', () => {
    const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const { body, names } = toOpenAiChatRequest(
      [{ role: 'user', content: 'x' }],
      [{ name: 'files.read', description: 'Reads a file', parameters }],
      { model: 'gpt-4o-mini', temperature: 0.7 },
    );
    expect(body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'files__read', description: 'Reads a file', parameters } }],
      temperature: 0.7,
      stream: false,
    });
    expect(names.fromWire('files__read')).toBe('files.read');
  });

  it('omits tools when none is offered', () => {
    const { body } = toOpenAiChatRequest([{ role: 'user', content: 'x' }], [], settings);
    expect('tools' in body).toBe(false);
  });

  it('maps names the same way in the tools and in the history, colliding names included', () => {
    const { body, names } = toOpenAiChatRequest(
      [{ role: 'assistant', content: null, toolCalls: [{ id: 'c', toolName: 'a__b', arguments: {} }] }],
      [
        { name: 'a.b', description: '', parameters: {} },
        { name: 'a__b', description: '', parameters: {} },
      ],
      settings,
    );
    const offered = body.tools?.map((tool) => tool.function.name) ?? [];
    const history = body.messages[0]?.role === 'assistant' ? body.messages[0].tool_calls?.[0]?.function.name : undefined;
    expect(offered[1]).toBe(history);
    expect(new Set(offered).size).toBe(2);
    expect(names.fromWire(offered[0] ?? '')).toBe('a.b');
    expect(names.fromWire(offered[1] ?? '')).toBe('a__b');
  });
});
