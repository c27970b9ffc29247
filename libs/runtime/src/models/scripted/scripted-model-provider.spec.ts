import type { ScriptedRound } from '../../agents/agent-definition';
import type { ModelRequest } from '../model-provider';
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
