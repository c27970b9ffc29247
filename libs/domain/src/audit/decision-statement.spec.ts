import { createHash } from 'node:crypto';
import { foldEvents } from '../decider';
import type { RunEvent } from '../run/run-events';
import { createRunDecider } from '../run/run-decider';
import { canonicalJson } from './canonical-json';
import { busPrincipal } from '../principal/principal';
import { runEventStatementKey, statementKey } from './decision-statement';

const T0 = Date.UTC(2026, 0, 1);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A run that waited for approval of one call and whose input was asked and answered. */
function history(decision: 'ApprovalGranted' | 'ApprovalDenied'): RunEvent[] {
  const call = { stepId: 'run-1/r0/t0', callIndex: 0, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' as const, arguments: { path: 'a', text: 'b' }, requirement: 'write' as const };
  return [
    { type: 'RunRequested', data: { runId: 'run-1', agent: 'a', input: 'go', mode: 'queued', maxIterations: 5, requestedAt: T0, requestedBy: { kind: 'bus', id: 'host' } } },
    { type: 'ApprovalRequested', data: { runId: 'run-1', round: 0, calls: [call], onDenial: 'tellModel', owner: 'w', attempt: 1, requestedAt: T0 } },
    decision === 'ApprovalGranted'
      ? { type: 'ApprovalGranted', data: { runId: 'run-1', round: 0, stepIds: ['run-1/r0/t0'], decidedBy: busPrincipal('alice'), reason: null, decidedAt: T0 + 1 } }
      : { type: 'ApprovalDenied', data: { runId: 'run-1', round: 0, stepIds: ['run-1/r0/t0'], decidedBy: busPrincipal('bob'), reason: 'no', onDenial: 'tellModel', decidedAt: T0 + 1 } },
    { type: 'InputSubmitted', data: { runId: 'run-1', stepId: 'run-1/r1/t0', input: { b: 1, a: [2] }, submittedBy: busPrincipal('dave'), submittedAt: T0 + 2 } },
  ];
}

describe('decision statements derived from the run', () => {
  it('the run holds one statement per decision that took effect, from its own events', () => {
    const state = foldEvents(createRunDecider(), history('ApprovalGranted'));
    expect(state.statements).toEqual([
      {
        kind: 'start',
        data: { runId: 'run-1', agent: 'a', mode: 'queued', inputHash: sha256('"go"'), requestedBy: busPrincipal('host'), requestedAt: T0, continuationOf: null },
      },
      {
        kind: 'approval',
        data: {
          runId: 'run-1',
          round: 0,
          decision: 'approved',
          calls: [{ stepId: 'run-1/r0/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: sha256('{"path":"a","text":"b"}') }],
          decidedBy: busPrincipal('alice'),
          reason: null,
        },
      },
      { kind: 'input', data: { runId: 'run-1', stepId: 'run-1/r1/t0', inputHash: sha256(canonicalJson({ a: [2], b: 1 })), answeredBy: busPrincipal('dave'), answeredAt: T0 + 2 } },
    ]);
    expect(state.statements.map(statementKey)).toEqual(['start', 'approval:0', 'input:run-1/r1/t0']);
  });

  it('a denial is stated as denied, and the run events name the same decisions as their statements', () => {
    const events = history('ApprovalDenied');
    const state = foldEvents(createRunDecider(), events);
    expect(state.statements[1]).toMatchObject({ kind: 'approval', data: { decision: 'denied', decidedBy: busPrincipal('bob'), reason: 'no' } });
    expect(events.map(runEventStatementKey).filter((k) => k !== null)).toEqual(state.statements.map(statementKey));
  });

  it('a continuation states who requeued it as its starter, and the run it continues', () => {
    const requested: RunEvent = {
      type: 'RunRequested',
      data: { runId: 'run-2', agent: 'a', input: 'go', mode: 'queued', maxIterations: 5, requestedAt: T0, requestedBy: busPrincipal('op'), continuation: { of: 'run-1', idempotencyRoot: 'run-1', carriedSteps: [] } },
    };
    const state = foldEvents(createRunDecider(), [requested]);
    expect(state.statements).toEqual([{ kind: 'start', data: expect.objectContaining({ runId: 'run-2', requestedBy: busPrincipal('op'), continuationOf: 'run-1' }) }]);
    expect(runEventStatementKey(requested)).toBe('start');
  });

  it('a requeue states a resolution only when it resolved a write in flight', () => {
    const requeue = (resolution: { outcome: 'executed'; note: string } | null): RunEvent => ({
      type: 'RunRequeuedByOperator',
      data: {
        runId: 'run-1',
        continuationRunId: 'run-2',
        requestedBy: busPrincipal('op'),
        reason: null,
        inFlightWrite: { stepId: 'run-1/r0/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', idempotencyKey: 'k', startedAt: T0, attempt: 1 },
        resolution,
        requeuedAt: T0,
      },
    });
    expect(runEventStatementKey(requeue(null))).toBeNull();
    expect(runEventStatementKey(requeue({ outcome: 'executed', note: 'seen' }))).toBe('resolution:run-1/r0/t0:run-2');
  });
});
