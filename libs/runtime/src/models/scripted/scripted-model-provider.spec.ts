import { ConfigurationError } from '@agent-ledger/domain';
import type { JsonObject, JsonValue } from '@agent-ledger/domain';
import type { ScriptedRound } from '../../agents/agent-definition';
import type { ConversationMessage } from '../conversation';
import type { ModelRequest } from '../model-provider';
import { ScriptPlaceholderError } from './script-placeholder.error';
import { escapeScriptText } from './script-template';
import { ScriptedModelProvider } from './scripted-model-provider';
import { ScriptEndedError } from './script-ended.error';

const script: readonly ScriptedRound[] = [
  { toolCalls: [{ tool: 'files.read', arguments: { path: 'in.txt' } }] },
  {
    toolCalls: [
      { tool: 'files.write', arguments: { path: 'out.txt', content: 'report' } },
      { tool: 'files.append', arguments: { path: 'log.txt', content: 'line' } },
    ],
  },
  { final: 'Done.' },
];

function request(round: number, signal: AbortSignal = new AbortController().signal): ModelRequest {
  return { runId: 'run-1', agent: 'file-clerk', round, messages: [{ role: 'system', content: 'x' }], tools: [], signal };
}

describe('ScriptedModelProvider', () => {
  const provider = new ScriptedModelProvider(script);

  it('answers round 0 with the tool calls of the first round', async () => {
    await expect(provider.respond(request(0))).resolves.toEqual({
      type: 'toolCalls',
      calls: [{ toolName: 'files.read', arguments: { path: 'in.txt' } }],
    });
  });

  it('answers round N with round N of the script, calls in order', async () => {
    await expect(provider.respond(request(1))).resolves.toEqual({
      type: 'toolCalls',
      calls: [
        { toolName: 'files.write', arguments: { path: 'out.txt', content: 'report' } },
        { toolName: 'files.append', arguments: { path: 'log.txt', content: 'line' } },
      ],
    });
  });

  it('answers a final round with its final answer', async () => {
    await expect(provider.respond(request(2))).resolves.toEqual({ type: 'final', content: 'Done.' });
  });

  it('is deterministic: the same round gives the same answer, whatever the conversation', async () => {
    const again = await provider.respond({ ...request(1), messages: [], tools: [{ name: 'x', description: 'x', parameters: {} }] });
    expect(again).toEqual(await provider.respond(request(1)));
  });

  it('fails past its end with a configuration error naming the agent and the round (never an answer nobody wrote)', async () => {
    const toolsOnly = new ScriptedModelProvider([{ toolCalls: [{ tool: 'clock.now', arguments: {} }] }]);
    const ended = toolsOnly.respond(request(1));
    await expect(ended).rejects.toBeInstanceOf(ScriptEndedError);
    await expect(ended).rejects.toMatchObject({
      code: 'SCRIPT_ENDED',
      failureClass: 'configuration',
      agent: 'file-clerk',
      round: 1,
      message: expect.stringMatching(/^The script of agent file-clerk has 1 round and was asked for round 1: add the rounds it needs/),
    });
  });

  it('rejects with the signal reason when the request is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    controller.abort(reason);
    await expect(provider.respond(request(0, controller.signal))).rejects.toBe(reason);
  });
});

describe('ScriptedModelProvider placeholders', () => {
  /** A round of the conversation: the assistant's calls and what each call's result says. */
  interface Call {
    readonly tool: string;
    readonly arguments?: JsonObject;
    readonly result?: JsonValue;
    readonly error?: string;
    readonly denied?: true;
  }

  /** The conversation the runtime builds (conversation-builder): system, user, then each round's calls and their results. */
  function conversation(rounds: readonly (readonly Call[])[]): ConversationMessage[] {
    const messages: ConversationMessage[] = [
      { role: 'system', content: 'x' },
      { role: 'user', content: 'go' },
    ];
    rounds.forEach((calls, round) => {
      const id = (i: number) => `run-1/r${round}/t${i}`;
      messages.push({ role: 'assistant', content: null, toolCalls: calls.map((c, i) => ({ id: id(i), toolName: c.tool, arguments: c.arguments ?? {} })) });
      calls.forEach((c, i) => {
        const failed = c.error !== undefined;
        messages.push({
          role: 'tool',
          toolCallId: id(i),
          toolName: c.tool,
          content: failed ? { error: c.error ?? '', failureClass: 'clientError' } : (c.result ?? null),
          isError: failed,
          ...(c.denied === true ? { denied: true as const } : {}),
        });
      });
    });
    return messages;
  }

  function ask(provider: ScriptedModelProvider, rounds: readonly (readonly Call[])[]) {
    return provider.respond({ ...request(rounds.length), messages: conversation(rounds) });
  }

  const read: Call = { tool: 'files.read', arguments: { path: 'notes.txt' }, result: { path: 'notes.txt', content: 'Buy milk.', bytes: 9 } };
  const clerk: ScriptedRound[] = [
    { toolCalls: [{ tool: 'files.read', arguments: { path: 'notes.txt' } }] },
    { toolCalls: [{ tool: 'files.append', arguments: { path: 'log.txt', content: 'read {{result:files.read/bytes}} bytes of {{result:0.0/path}}', tags: ['{{outcome:files.read}}'] } }] },
    {
      final: 'Read "{{result:files.read/content}}" and logged it ({{outcome:files.append}}).',
      finalIfDenied: 'Read it; the log was refused: {{error:files.append}}',
      finalIfFailed: 'Read it; the log failed ({{outcome:1.0}}): {{error:1.0}}',
    },
  ];
  const provider = new ScriptedModelProvider(clerk);

  it('fills string arguments, at any depth, from earlier results: by tool name or by round.index, a path into the result', async () => {
    await expect(ask(provider, [[read]])).resolves.toEqual({
      type: 'toolCalls',
      calls: [{ toolName: 'files.append', arguments: { path: 'log.txt', content: 'read 9 bytes of notes.txt', tags: ['succeeded'] } }],
    });
  });

  it('answers final when every call succeeded, with the results and outcomes filled in', async () => {
    const appended: Call = { tool: 'files.append', result: { appendedBytes: 5 } };
    await expect(ask(provider, [[read], [appended]])).resolves.toEqual({ type: 'final', content: 'Read "Buy milk." and logged it (succeeded).' });
  });

  it('answers finalIfDenied when a person denied a call, quoting what the model was told', async () => {
    const denied: Call = { tool: 'files.append', error: 'The call of files.append was denied by a person: no; it was not executed', denied: true };
    await expect(ask(provider, [[read], [denied]])).resolves.toEqual({
      type: 'final',
      content: 'Read it; the log was refused: The call of files.append was denied by a person: no; it was not executed',
    });
  });

  it('answers finalIfFailed when a call failed', async () => {
    const failed: Call = { tool: 'files.append', error: 'disk full' };
    await expect(ask(provider, [[read], [failed]])).resolves.toEqual({ type: 'final', content: 'Read it; the log failed (failed): disk full' });
  });

  it('falls back to final when there is no alternative for what happened', async () => {
    const plain = new ScriptedModelProvider([{ toolCalls: [{ tool: 'files.append', arguments: {} }] }, { final: 'The append {{outcome:files.append}}.' }]);
    await expect(ask(plain, [[{ tool: 'files.append', error: 'denied', denied: true }]])).resolves.toEqual({ type: 'final', content: 'The append denied.' });
  });

  it('uses the latest call of a tool named more than once, a string result as it is and other JSON as JSON text', async () => {
    const twice = new ScriptedModelProvider([
      { toolCalls: [{ tool: 'clock.now', arguments: {} }] },
      { toolCalls: [{ tool: 'clock.now', arguments: {} }, { tool: 'user.ask', arguments: {} }] },
      { final: '{{result:clock.now/iso}} {{result:0.0/iso}} {{result:user.ask}} {{result:clock.now}}' },
    ]);
    const first: Call = { tool: 'clock.now', result: { iso: 'T1' } };
    const second: Call = { tool: 'clock.now', result: { iso: 'T2' } };
    await expect(ask(twice, [[first], [second, { tool: 'user.ask', result: 'an answer' }]])).resolves.toEqual({
      type: 'final',
      content: 'T2 T1 an answer {"iso":"T2"}',
    });
  });

  it.each([
    ['a result of a denied call', { final: '{{result:files.append}}' }, /files.append \(round 1, call 0\) was denied by a person, so it has no result \(no\)/],
    ['an error of a call that succeeded', { final: '{{error:files.read}}' }, /files.read \(round 0, call 0\) succeeded, so it has no error/],
    ['a path the result does not have', { final: '{{result:files.read/lines/0}}' }, /the result of files.read \(round 0, call 0\) has nothing at \/lines\/0/],
  ] as const)('fails with a configuration error naming the agent, the round and the placeholder for %s, never leaving it in', async (_what, last, problem) => {
    const script: ScriptedRound[] = [clerk[0] as ScriptedRound, { toolCalls: [{ tool: 'files.append', arguments: {} }] }, last];
    const answer = ask(new ScriptedModelProvider(script), [[read], [{ tool: 'files.append', error: 'no', denied: true }]]);
    await expect(answer).rejects.toBeInstanceOf(ScriptPlaceholderError);
    await expect(answer).rejects.toMatchObject({
      code: 'SCRIPT_PLACEHOLDER_UNFILLED',
      failureClass: 'configuration',
      agent: 'file-clerk',
      round: 2,
      placeholder: last.final,
      message: expect.stringMatching(new RegExp(`^The script of agent file-clerk cannot fill .* in round 2: ${problem.source}`)) as string,
    });
  });

  it('fails when the conversation has no result for the call a placeholder reads', async () => {
    const messages = conversation([[read]]).slice(0, -1);
    const answer = provider.respond({ ...request(1), messages });
    await expect(answer).rejects.toMatchObject({ placeholder: '{{result:files.read/bytes}}', message: expect.stringContaining('files.read (round 0, call 0) has no recorded result') as string });
  });

  it('reads {{{{ as a literal {{, which escapeScriptText writes for any text', async () => {
    const text = 'a {{{ b }} {{{{c';
    const literal = new ScriptedModelProvider([{ toolCalls: [{ tool: 'files.write', arguments: { content: escapeScriptText(text) } }] }, { final: '{{{{x}} {{outcome:files.write}}' }]);
    await expect(ask(literal, [])).resolves.toEqual({ type: 'toolCalls', calls: [{ toolName: 'files.write', arguments: { content: text } }] });
    await expect(ask(literal, [[{ tool: 'files.write', result: {} }]])).resolves.toEqual({ type: 'final', content: '{{x}} succeeded' });
    expect(() => new ScriptedModelProvider([{ final: text }])).toThrow(/has the unknown placeholder "\{\{\{ b \}\}": .*write \{\{\{\{ for a literal \{\{/);
  });

  it('refuses at construction a script with a malformed, unknown or forward placeholder, naming where', () => {
    expect(() => new ScriptedModelProvider([{ final: 'It is {{result:clock.now}}' }])).toThrow(ConfigurationError);
    expect(() => new ScriptedModelProvider([{ final: 'It is {{result:clock.now}}' }])).toThrow(
      'The script is invalid: script[0].final has "{{result:clock.now}}", but no earlier round calls clock.now',
    );
    expect(() => new ScriptedModelProvider([{ toolCalls: [{ tool: 'a', arguments: { x: '{{when}}' } }] }, { final: 'ok' }])).toThrow(
      /script\[0\]\.toolCalls\[0\]\.arguments\.x has the unknown placeholder "\{\{when\}\}"/,
    );
  });
});
