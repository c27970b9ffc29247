import type { ConversationMessage } from '../conversation';
import { toAnthropicMessagesRequest } from './anthropic-messages-request';
import { ANTHROPIC_TOOL_USE_ID_PATTERN, AnthropicToolUseIds } from './anthropic-tool-use-ids';

const settings = { model: 'claude-test', maxTokens: 1024, temperature: 0 };

describe('toAnthropicMessagesRequest', () => {
  it('puts the system prompt apart, maps tool calls to tool_use blocks and their results to one user message of tool_result blocks', () => {
    const messages: ConversationMessage[] = [
      { role: 'system', content: 'You are a clerk.' },
      { role: 'user', content: 'Copy in.txt, then log it' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'run-1/r0/t0', toolName: 'files.read', arguments: { path: 'in.txt' } },
          { id: 'run-1/r0/t1', toolName: 'clock.now', arguments: {} },
        ],
      },
      { role: 'tool', toolCallId: 'run-1/r0/t0', toolName: 'files.read', content: { text: 'hello' }, isError: false },
      { role: 'tool', toolCallId: 'run-1/r0/t1', toolName: 'clock.now', content: '2026-12-01T00:00:00Z', isError: false },
    ];
    const { body } = toAnthropicMessagesRequest(messages, [{ name: 'files.read', description: 'Reads a file', parameters: { type: 'object' } }], settings);

    expect(body).toEqual({
      model: 'claude-test',
      max_tokens: 1024,
      system: 'You are a clerk.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Copy in.txt, then log it' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'run-1_r0_t0', name: 'files__read', input: { path: 'in.txt' } },
            { type: 'tool_use', id: 'run-1_r0_t1', name: 'clock__now', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'run-1_r0_t0', content: '{"text":"hello"}' },
            { type: 'tool_result', tool_use_id: 'run-1_r0_t1', content: '2026-12-01T00:00:00Z' },
          ],
        },
      ],
      tools: [{ name: 'files__read', description: 'Reads a file', input_schema: { type: 'object' } }],
      temperature: 0,
    });
  });

  it('marks a failed call, and a call a person denied, with is_error: true', () => {
    const denial = { error: 'development denied files.append: not today', failureClass: 'clientError' };
    const { body } = toAnthropicMessagesRequest(
      [
        { role: 'user', content: 'Log it' },
        { role: 'assistant', content: 'I will log it.', toolCalls: [{ id: 'r/r0/t0', toolName: 'files.append', arguments: { path: 'a.log' } }] },
        { role: 'tool', toolCallId: 'r/r0/t0', toolName: 'files.append', content: denial, isError: true },
      ],
      [],
      settings,
    );
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'I will log it.' },
        { type: 'tool_use', id: 'r_r0_t0', name: 'files__append', input: { path: 'a.log' } },
      ],
    });
    expect(body.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r_r0_t0', content: JSON.stringify(denial), is_error: true }] });
  });

  it('omits system and tools when there are none, keeps an earlier final answer as assistant text, and merges consecutive turns of one role', () => {
    const { body } = toAnthropicMessagesRequest(
      [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.', toolCalls: [] },
        { role: 'assistant', content: null, toolCalls: [] },
        { role: 'user', content: 'Again' },
        { role: 'user', content: 'And again' },
      ],
      [],
      settings,
    );
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Again' }, { type: 'text', text: 'And again' }] },
    ]);
  });
});

describe('AnthropicToolUseIds', () => {
  it('maps step ids to ids the API accepts, the same id for a tool_use and its tool_result, distinct ids for ids that would collide', () => {
    const ids = new AnthropicToolUseIds();
    const a = ids.toWire('ik-0a1b/r0/t0');
    const b = ids.toWire('ik-0a1b_r0_t0');
    const c = ids.toWire('ik-0a1b:r0:t0');
    expect(a).toBe('ik-0a1b_r0_t0');
    expect(new Set([a, b, c]).size).toBe(3);
    for (const id of [a, b, c, ids.toWire('')]) expect(id).toMatch(ANTHROPIC_TOOL_USE_ID_PATTERN);
    expect(ids.toWire('ik-0a1b/r0/t0')).toBe(a);
  });
});
