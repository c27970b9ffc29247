import type { RunService } from './run-service';
import { RequeueDeadLetteredRunHandler } from './bus-handlers';
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

  it('is handled by RunService.requeue, after validation, with the stated resolution', async () => {
    const calls: unknown[] = [];
    const runs = { requeue: (runId: string, request: unknown) => (calls.push([runId, request]), Promise.resolve({ continuationRunId: 'c1', state: {} })) };
    const handler = new RequeueDeadLetteredRunHandler(runs as unknown as RunService);
    const result = await handler.execute(new RequeueDeadLetteredRun({ runId: 'run-1', principal: ALICE, resolution: { outcome: 'executed', note: 'seen' } }));
    expect(result).toMatchObject({ runId: 'run-1', continuationRunId: 'c1' });
    expect(calls).toEqual([['run-1', { requestedBy: ALICE, reason: undefined, resolution: { outcome: 'executed', note: 'seen' } }]]);
    await expect(handler.execute(new RequeueDeadLetteredRun({ runId: 'run-1', principal: { kind: 'bus', id: '' } }))).rejects.toBeInstanceOf(MessageValidationError);
    expect(calls).toHaveLength(1);
  });
});
