import { InvalidFieldError } from '../errors/invalid-field.error';
import { assertRunId, idempotencyKeyFor, stepIdFor } from './step-id';

describe('step ids', () => {
  it('derive from the run, the round and the call position, the same every time', () => {
    expect(stepIdFor({ runId: 'run-1', round: 0 })).toBe('run-1/r0/llm');
    expect(stepIdFor({ runId: 'run-1', round: 3, callIndex: 2 })).toBe('run-1/r3/t2');
    expect(stepIdFor({ runId: 'run-1', round: 3, callIndex: 2 })).toBe(stepIdFor({ runId: 'run-1', round: 3, callIndex: 2 }));
  });

  it('differ for every different step', () => {
    const ids = new Set<string>();
    for (let round = 0; round < 20; round++) {
      ids.add(stepIdFor({ runId: 'run-1', round }));
      for (let callIndex = 0; callIndex < 10; callIndex++) ids.add(stepIdFor({ runId: 'run-1', round, callIndex }));
    }
    ids.add(stepIdFor({ runId: 'run-2', round: 0 }));
    expect(ids.size).toBe(20 * 11 + 1);
  });

  it('give a tool an idempotency key that is stable across retries of the same step', () => {
    const stepId = stepIdFor({ runId: 'run-1', round: 1, callIndex: 0 });
    expect(idempotencyKeyFor(stepId)).toBe('agent-ledger:run-1/r1/t0');
    expect(idempotencyKeyFor(stepId)).toBe(idempotencyKeyFor(stepIdFor({ runId: 'run-1', round: 1, callIndex: 0 })));
  });

  it.each([
    [{ runId: 'run-1', round: -1 }, 'round'],
    [{ runId: 'run-1', round: 1.5 }, 'round'],
    [{ runId: 'run-1', round: 0, callIndex: -2 }, 'callIndex'],
    [{ runId: 'a/b', round: 0 }, 'runId'],
  ])('refuse malformed coordinates %j, naming %s', (coordinates, field) => {
    expect(() => stepIdFor(coordinates)).toThrow(expect.objectContaining({ field }) as Error);
  });

  it.each(['run-1', 'R_2.x:y', '0'.repeat(128)])('accept the run id %s', (runId) => {
    expect(() => assertRunId(runId)).not.toThrow();
  });

  it.each(['', '-run', 'a b', 'a/b', '0'.repeat(129), 7])('refuse the run id %s', (runId) => {
    expect(() => assertRunId(runId)).toThrow(InvalidFieldError);
  });
});
