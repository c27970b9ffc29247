import type { RunCommand } from '@agent-ledger/domain';
import { RequeueDeadLetteredRunHandler } from './requeue-dead-lettered-run.handler';
import { MessageValidationError, validateMessage } from '@agent-ledger/validation';
import { RequeueDeadLetteredRun } from './requeue-dead-lettered-run.command';

const ALICE = { kind: 'bus', id: 'alice' } as const;

describe('RequeueDeadLetteredRun on the bus', () => {
  it('accepts a requeue with or without a resolution', () => {
    expect(() => validateMessage(new RequeueDeadLetteredRun({ runId: 'run-1', principal: ALICE }))).not.toThrow();
    expect(() =>
      validateMessage(new RequeueDeadLetteredRun({ runId: 'run-1', principal: ALICE, reason: 'key rotated', resolution: { outcome: 'notExecuted', note: 'nothing in the log' } })),
    ).not.toThrow();
  });

  it.each([
    ['runId', { runId: 'a/b', principal: ALICE }],
    ['principal.id', { runId: 'run-1', principal: { kind: 'bus', id: '' } }],
    ['principal', { runId: 'run-1' }],
    ['requestedBy', { runId: 'run-1', principal: ALICE, requestedBy: 'alice' }],
    ['resolution.outcome', { runId: 'run-1', principal: ALICE, resolution: { outcome: 'maybe', note: 'x' } }],
    ['resolution.note', { runId: 'run-1', principal: ALICE, resolution: { outcome: 'executed', note: '' } }],
    ['resolution.extra', { runId: 'run-1', principal: ALICE, resolution: { outcome: 'executed', note: 'x', extra: 1 } }],
    ['colour', { runId: 'run-1', principal: ALICE, colour: 'red' }],
    ['resolution.__proto__', { runId: 'run-1', principal: ALICE, resolution: JSON.parse('{"outcome":"executed","note":"x","__proto__":{"a":1}}') as unknown }],
  ])('refuses a bad %s, naming it', (field, fields) => {
    const validate = () => validateMessage(new RequeueDeadLetteredRun(fields as never));
    expect(validate).toThrow(MessageValidationError);
    expect(validate).toThrow(expect.objectContaining({ field }) as Error);
  });

  it('is decided by the run decider, after validation, with the caller as principal and the stated resolution', async () => {
    const sent: RunCommand[] = [];
    const refusal = new Error('refused by the decider');
    const processor = {
      load: () => Promise.resolve({ state: { continuedAs: null }, revision: 3n }),
      process: (command: RunCommand) => (sent.push(command), Promise.resolve({ decision: { kind: 'rejected', error: refusal } })),
    };
    const handler = new RequeueDeadLetteredRunHandler(processor as never, {} as never, {} as never, { now: () => 7 });
    await expect(handler.execute(new RequeueDeadLetteredRun({ runId: 'run-1', principal: ALICE, resolution: { outcome: 'executed', note: 'seen' } }))).rejects.toBe(refusal);
    expect(sent).toEqual([
      {
        type: 'RequeueRun',
        data: { runId: 'run-1', continuationRunId: expect.any(String) as string, requestedBy: ALICE, reason: undefined, resolution: { outcome: 'executed', note: 'seen' } },
        metadata: { now: 7 },
      },
    ]);
    await expect(handler.execute(new RequeueDeadLetteredRun({ runId: 'run-1', principal: { kind: 'bus', id: '' } }))).rejects.toBeInstanceOf(MessageValidationError);
    expect(sent).toHaveLength(1);
  });
});
