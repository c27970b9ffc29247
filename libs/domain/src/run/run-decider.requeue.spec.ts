import { foldEvents } from '../decider';
import { InvalidFieldError } from '../errors/invalid-field.error';
import { InFlightWriteUnresolvedError, RunAlreadyRequeuedError, RunNotDeadLetteredError, StepAlreadyCompletedError } from '../errors/run-rule-violations';
import { RunHistory } from '../testing/run-history';
import { runDeciderSpecification } from '../testing/run-decider-specification';
import { continuationOf } from './continuation';
import type { RequeueRun, StepTool } from './run-commands';
import { createRunDecider } from './run-decider';
import { isTerminalRunEvent } from './run-events';
import { apiKeyPrincipal, busPrincipal } from '../principal/principal';

const OPERATOR = apiKeyPrincipal('operator');

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const WORKER = 'worker:host-a:101';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const spec = runDeciderSpecification(decider);
const calls = { type: 'toolCalls', calls: [{ toolName: 'clock.now', arguments: {} }, { toolName: 'files.write', arguments: {} }] } as const;
const READ: StepTool = { name: 'clock.now', effect: 'READ_ONLY' };
const IDEMPOTENT: StepTool = { name: 'files.write', effect: 'IDEMPOTENT_WRITE' };
const NON_IDEMPOTENT: StepTool = { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' };
const requeue = (extra: Partial<RequeueRun['data']> = {}): RequeueRun => ({
  type: 'RequeueRun',
  data: { runId: 'run-1', continuationRunId: 'run-1-c1', requestedBy: OPERATOR, ...extra },
  metadata: { now: T0 + 9000 * SECOND },
});

/** A run that read the clock, then was reaped mid write, with the write's effect given. */
function reapedMidWrite(write: StepTool) {
  return new RunHistory(decider)
    .request(T0)
    .claim(WORKER, T0)
    .startLlm(LEASE, 0, T0)
    .respond(LEASE, 0, calls, T0)
    .startTool(LEASE, 0, 0, READ, T0)
    .executed(LEASE, 0, 0, { now: 'then' }, T0)
    .startTool(LEASE, 0, 1, write, T0)
    .reap(T0 + 5000 * SECOND);
}

/** A run dead-lettered with RETRIES_EXHAUSTED while an idempotent write was in flight. */
function exhaustedMidIdempotentWrite() {
  const h = reapedMidWrite(IDEMPOTENT);
  for (let attempt = 2; attempt <= 4; attempt++) {
    h.claim(WORKER, T0 + attempt * 6000 * SECOND).reap(T0 + (attempt * 6000 + 5000) * SECOND);
  }
  return h;
}

describe('run decider: an operator requeues a dead-lettered run', () => {
  it('refuses a run that is not dead-lettered', () => {
    const completed = new RunHistory(decider).request(T0).claim(WORKER, T0).complete(LEASE, 'done', T0);
    spec.given(completed.events).when(requeue()).thenRejects(RunNotDeadLetteredError, { status: 'COMPLETED' });
    spec.given(new RunHistory(decider).request(T0).claim(WORKER, T0).events).when(requeue()).thenRejects(RunNotDeadLetteredError, { status: 'RUNNING' });
  });

  it('records the requeue on the settled run, which stays FAILED with its one terminal event', () => {
    const h = exhaustedMidIdempotentWrite();
    const { decision, stateAfter } = spec.given(h.events).when(requeue({ reason: 'provider is back' }));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [
        {
          type: 'RunRequeuedByOperator',
          data: { runId: 'run-1', continuationRunId: 'run-1-c1', requestedBy: OPERATOR, reason: 'provider is back', resolution: null, inFlightWrite: { effect: 'IDEMPOTENT_WRITE' } },
        },
      ],
    });
    expect(stateAfter.settlement).toMatchObject({ status: 'FAILED', reason: 'RETRIES_EXHAUSTED' });
    expect(stateAfter.continuedAs).toBe('run-1-c1');
    expect([...h.events, ...(decision.kind === 'accepted' ? decision.events : [])].filter(isTerminalRunEvent)).toHaveLength(1);
  });

  it('requeues a run once', () => {
    const h = exhaustedMidIdempotentWrite().send(requeue());
    spec.given(h.events).when(requeue({ continuationRunId: 'run-1-c2' })).thenRejects(RunAlreadyRequeuedError, { continuationRunId: 'run-1-c1' });
  });

  it('refuses to requeue a run with a NON_IDEMPOTENT_WRITE in flight unless the operator states how it was resolved', () => {
    const h = reapedMidWrite(NON_IDEMPOTENT);
    spec.given(h.events).when(requeue()).thenRejects(InFlightWriteUnresolvedError, { stepId: 'run-1/r0/t1', toolName: 'files.append' });
    const { decision } = spec.given(h.events).when(requeue({ resolution: { outcome: 'notExecuted', note: 'ticket 42 is still open' } }));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ data: { resolution: { outcome: 'notExecuted', note: 'ticket 42 is still open' } } }] });
  });

  it.each([
    ['data.resolution.note', { resolution: { outcome: 'executed', note: ' ' } }],
    ['data.resolution.outcome', { resolution: { outcome: 'maybe', note: 'x' } }],
    ['data.continuationRunId', { continuationRunId: 'run-1' }],
    ['data.continuationRunId', { continuationRunId: 'a/b' }],
  ])('refuses a requeue whose %s is malformed', (field, extra) => {
    spec.given(reapedMidWrite(NON_IDEMPOTENT).events).when(requeue(extra as never)).thenRejects(InvalidFieldError, { field });
  });

  it('refuses a resolution for a run with no write in flight', () => {
    const h = new RunHistory(decider).request(T0).claim(WORKER, T0).fail(LEASE, { failureClass: 'auth', message: '401' }, T0);
    spec.given(h.events).when(requeue({ resolution: { outcome: 'executed', note: 'x' } })).thenRejects(InvalidFieldError, { field: 'data.resolution' });
  });
});

describe('the continuation run', () => {
  const continued = (history: RunHistory, resolution?: Parameters<typeof continuationOf>[3]) => {
    const state = foldEvents(decider, history.events);
    const next = new RunHistory(decider, 'run-1-c1').send({ type: 'RequestRun', data: continuationOf(state, 'run-1-c1', busPrincipal('operator'), resolution), metadata: { now: T0 + 9000 * SECOND } });
    return next.claim(WORKER, T0 + 9001 * SECOND);
  };
  const C = { owner: WORKER, attempt: 1 };

  it('carries the completed steps, which are never executed again', () => {
    const next = continued(exhaustedMidIdempotentWrite());
    const state = foldEvents(decider, next.events);
    expect(state.steps.get('run-1-c1/r0/t0')).toMatchObject({ status: 'completed', result: { now: 'then' } });
    expect(state.steps.get('run-1-c1/r0/llm')).toMatchObject({ status: 'completed', response: calls });
    spec
      .given(next.events)
      .when({ type: 'StartStep', data: { runId: 'run-1-c1', ...C, round: 0, callIndex: 0, tool: READ }, metadata: { now: T0 + 9002 * SECOND } })
      .thenRejects(StepAlreadyCompletedError, { stepId: 'run-1-c1/r0/t0' });
  });

  it('retries an interrupted idempotent write with the idempotency key of the original run', () => {
    const { decision } = spec
      .given(continued(exhaustedMidIdempotentWrite()).preApprove(C, 0, 1, IDEMPOTENT, T0 + 9001 * SECOND).events)
      .when({ type: 'StartStep', data: { runId: 'run-1-c1', ...C, round: 0, callIndex: 1, tool: IDEMPOTENT }, metadata: { now: T0 + 9002 * SECOND } });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ data: { stepId: 'run-1-c1/r0/t1', idempotencyKey: 'agent-ledger:run-1/r0/t1' } }] });
  });

  it('never executes a non-idempotent write the operator declared executed', () => {
    const next = continued(reapedMidWrite(NON_IDEMPOTENT), { outcome: 'executed', note: 'the log line is there' });
    expect(foldEvents(decider, next.events).steps.get('run-1-c1/r0/t1')).toMatchObject({ status: 'completed', result: { resolvedByOperator: true } });
    spec
      .given(next.events)
      .when({ type: 'StartStep', data: { runId: 'run-1-c1', ...C, round: 0, callIndex: 1, tool: NON_IDEMPOTENT }, metadata: { now: T0 + 9002 * SECOND } })
      .thenRejects(StepAlreadyCompletedError);
  });

  it('executes a non-idempotent write the operator declared not executed, once, under the original key', () => {
    const { decision } = spec
      .given(continued(reapedMidWrite(NON_IDEMPOTENT), { outcome: 'notExecuted', note: 'nothing in the log' }).preApprove(C, 0, 1, NON_IDEMPOTENT, T0 + 9001 * SECOND).events)
      .when({ type: 'StartStep', data: { runId: 'run-1-c1', ...C, round: 0, callIndex: 1, tool: NON_IDEMPOTENT }, metadata: { now: T0 + 9002 * SECOND } });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ data: { idempotencyKey: 'agent-ledger:run-1/r0/t1' } }] });
  });
});
