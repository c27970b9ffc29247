import { foldEvents } from '../decider';
import { InvalidFieldError } from '../errors/invalid-field.error';
import {
  ApprovalRequiredError,
  ApprovalRoundMismatchError,
  RunAlreadySettledError,
  RunNotClaimableError,
  RunNotWaitingError,
  StepAlreadyCompletedError,
  StepNotStartedError,
} from '../errors/run-rule-violations';
import { RunHistory } from '../testing/run-history';
import { runDeciderSpecification } from '../testing/run-decider-specification';
import type { DecideApproval, RequestApproval, StartStep, StepTool, SubmitInput } from './run-commands';
import { createRunDecider } from './run-decider';
import type { ModelResponse } from './run-events';
import type { RunMode } from './run-mode';
import { apiKeyPrincipal, busPrincipal } from '../principal/principal';

const ALICE = apiKeyPrincipal('alice');
const BOB = busPrincipal('bob');

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const WORKER = 'worker:host-a:101';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const spec = runDeciderSpecification(decider);
const READ: StepTool = { name: 'clock.now', effect: 'READ_ONLY' };
const APPEND: StepTool = { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' };
const WRITE: StepTool = { name: 'files.write', effect: 'IDEMPOTENT_WRITE' };
const calls: ModelResponse = {
  type: 'toolCalls',
  calls: [
    { toolName: 'clock.now', arguments: {} },
    { toolName: 'files.append', arguments: { path: 'log.txt', content: 'hi' } },
  ],
};

/** A claimed run whose round 0 asked for a clock reading and an append. */
const responded = (mode: RunMode = 'queued') => {
  const owner = mode === 'queued' ? WORKER : 'interactive:host-a:101';
  return new RunHistory(decider).request(T0, mode).claim(owner, T0).startLlm({ owner, attempt: 1 }, 0, T0).respond({ owner, attempt: 1 }, 0, calls, T0);
};

const requestApproval = (extra: Partial<RequestApproval['data']> = {}, lease = LEASE): RequestApproval => ({
  type: 'RequestApproval',
  data: { runId: 'run-1', ...lease, round: 0, calls: [{ callIndex: 1, effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }], onDenial: 'endRun', ...extra },
  metadata: { now: T0 + SECOND },
});

const decide = (decision: 'approve' | 'deny', extra: Partial<DecideApproval['data']> = {}): DecideApproval => ({
  type: 'DecideApproval',
  data: { runId: 'run-1', decision, decidedBy: ALICE, reason: 'checked the log', ...extra },
  metadata: { now: T0 + 60 * SECOND },
});

/** A run waiting for approval of its append. */
const waiting = (onDenial: 'tellModel' | 'endRun' = 'endRun', mode: RunMode = 'queued') => {
  const lease = mode === 'queued' ? LEASE : { owner: 'interactive:host-a:101', attempt: 1 };
  return responded(mode).send(requestApproval({ onDenial }, lease));
};

describe('run decider: a write waits for approval', () => {
  it('refuses to start a write that was not approved, and starts it once pre-approved', () => {
    const start = { type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, tool: APPEND }, metadata: { now: T0 + SECOND } } as const;
    spec.given(responded().events).when(start).thenRejects(ApprovalRequiredError, { stepId: 'run-1/r0/t1' });
    const preApproved = responded().preApprove(LEASE, 0, 1, APPEND, T0);
    expect(preApproved.events.at(-1)).toMatchObject({ type: 'ToolCallPreApproved', data: { stepId: 'run-1/r0/t1', toolName: 'files.append', agent: 'demo-agent' } });
    expect(spec.given(preApproved.events).when(start).decision).toMatchObject({ kind: 'accepted', events: [{ type: 'StepStarted' }] });
  });

  it('starts a refused call (not offered, unknown) without approval: it never executes', () => {
    const { decision } = spec
      .given(responded().events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, tool: { ...APPEND, refused: true } }, metadata: { now: T0 } });
    expect(decision).toMatchObject({ kind: 'accepted' });
  });

  it('records what is asked, from the model recorded answer, and waits holding no lease', () => {
    const { decision, stateAfter } = spec.given(responded().events).when(requestApproval());
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [
        {
          type: 'ApprovalRequested',
          data: {
            round: 0,
            onDenial: 'endRun',
            calls: [{ stepId: 'run-1/r0/t1', callIndex: 1, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { path: 'log.txt', content: 'hi' }, requirement: 'write' }],
          },
        },
      ],
    });
    expect(stateAfter).toMatchObject({ status: 'WAITING_FOR_APPROVAL', lease: null, pendingApproval: { round: 0 } });
  });

  it('the waiting run is neither claimable nor reapable, and its old segment has lost the lease', () => {
    const events = waiting().events;
    spec.given(events).when({ type: 'ClaimRun', data: { runId: 'run-1', owner: WORKER }, metadata: { now: T0 + 2 * SECOND } }).thenRejects(RunNotClaimableError, { why: 'notQueued' });
    expect(spec.given(events).when({ type: 'ReapRun', data: { runId: 'run-1', reaper: 'r:h:1' }, metadata: { now: T0 + 9999 * SECOND } }).decision.kind).toBe('rejected');
    spec.given(events).when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, tool: READ }, metadata: { now: T0 + 2 * SECOND } }).thenLeaseLost();
  });

  it('an approval queues the run again, due at once; a worker resumes it and the write may start', () => {
    const { decision, stateAfter } = spec.given(waiting().events).when(decide('approve'));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'ApprovalGranted', data: { round: 0, stepIds: ['run-1/r0/t1'], decidedBy: ALICE, reason: 'checked the log', decidedAt: T0 + 60 * SECOND } }],
    });
    expect(stateAfter).toMatchObject({ status: 'QUEUED', notBefore: T0 + 60 * SECOND, pendingApproval: null });
    expect(stateAfter.approvals.get('run-1/r0/t1')).toBe('granted');
    const resumed = waiting().send(decide('approve')).claim(WORKER, T0 + 61 * SECOND);
    const lease = { owner: WORKER, attempt: 2 };
    const start = { type: 'StartStep', data: { runId: 'run-1', ...lease, round: 0, callIndex: 1, tool: APPEND }, metadata: { now: T0 + 62 * SECOND } } as const;
    expect(spec.given(resumed.events).when(start).decision).toMatchObject({ kind: 'accepted', events: [{ type: 'StepStarted', data: { stepId: 'run-1/r0/t1' } }] });
  });

  it('an interactive run resumes in a worker after the pause (its caller is gone), and is still never retried', () => {
    const approved = waiting('endRun', 'interactive').send(decide('approve'));
    spec
      .given(approved.events)
      .when({ type: 'ClaimRun', data: { runId: 'run-1', owner: 'interactive:host-a:7' }, metadata: { now: T0 + 61 * SECOND } })
      .thenRejects(RunNotClaimableError, { why: 'wrongSegmentKind' });
    const claimed = approved.claim(WORKER, T0 + 61 * SECOND);
    const { stateAfter } = spec
      .given(claimed.events)
      .when({ type: 'FailRun', data: { runId: 'run-1', owner: WORKER, attempt: 2, error: { failureClass: 'serverError', message: 'x' } }, metadata: { now: T0 + 62 * SECOND } });
    expect(stateAfter.settlement).toMatchObject({ status: 'FAILED', reason: 'NOT_RETRYABLE', deadLettered: false });
  });

  it('a denial with endRun fails the run APPROVAL_DENIED in the same append; nothing executes', () => {
    const { decision, stateAfter } = spec.given(waiting('endRun').events).when(decide('deny'));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [
        { type: 'ApprovalDenied', data: { onDenial: 'endRun', stepIds: ['run-1/r0/t1'] } },
        { type: 'RunFailed', data: { reason: 'APPROVAL_DENIED', deadLettered: false, failure: { code: 'APPROVAL_DENIED', failureClass: 'clientError' } } },
      ],
    });
    expect(stateAfter.steps.get('run-1/r0/t1')).toMatchObject({ status: 'completed', starts: 0, denied: true });
    expect(stateAfter.inFlightWrite).toBeNull();
  });

  it('a denial with tellModel completes the denied call as failed, never executed, and queues the run', () => {
    const { stateAfter } = spec.given(waiting('tellModel').events).when(decide('deny'));
    expect(stateAfter.status).toBe('QUEUED');
    expect(stateAfter.steps.get('run-1/r0/t1')).toMatchObject({ status: 'completed', starts: 0, outcome: 'failed', denied: true, error: { code: 'APPROVAL_DENIED' } });
    const resumed = waiting('tellModel').send(decide('deny')).claim(WORKER, T0 + 61 * SECOND);
    expect(
      spec.given(resumed.events).when({ type: 'StartStep', data: { runId: 'run-1', owner: WORKER, attempt: 2, round: 0, callIndex: 1, tool: APPEND }, metadata: { now: T0 + 62 * SECOND } })
        .decision,
    ).toMatchObject({ kind: 'rejected', error: { code: 'STEP_ALREADY_COMPLETED' } });
  });

  it('refuses a second decision, a decision on a run that does not wait, and one on another round', () => {
    spec.given(waiting().send(decide('approve')).events).when(decide('deny')).thenRejects(RunNotWaitingError, { code: 'RUN_NOT_WAITING_FOR_APPROVAL', status: 'QUEUED' });
    spec.given(responded().events).when(decide('approve')).thenRejects(RunNotWaitingError, { status: 'RUNNING' });
    spec.given(waiting('endRun').send(decide('deny')).events).when(decide('approve')).thenRejects(RunAlreadySettledError, { status: 'FAILED' });
    spec.given(waiting().events).when(decide('approve', { round: 3 })).thenRejects(ApprovalRoundMismatchError, { expectedRound: 3, waitingRound: 0 });
    expect(spec.given(waiting().events).when(decide('approve', { round: 0 })).decision.kind).toBe('accepted');
  });

  it('a cancel while waiting settles the run at once', () => {
    const { stateAfter } = spec.given(waiting().events).when({ type: 'RequestCancel', data: { runId: 'run-1', requestedBy: BOB }, metadata: { now: T0 + 5 * SECOND } });
    expect(stateAfter).toMatchObject({ status: 'CANCELLED', pendingApproval: null });
  });

  it.each<[string, Partial<RequestApproval['data']>]>([
    ['data.calls', { calls: [] }],
    ['data.calls[0].callIndex', { calls: [{ callIndex: 5, effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }] }],
    ['data.calls[1].callIndex', { calls: [{ callIndex: 1, effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }, { callIndex: 1, effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }] }],
    ['data.calls[0].requirement', { calls: [{ callIndex: 0, effect: 'READ_ONLY', requirement: 'write' }] }],
    ['data.calls[0].effect', { calls: [{ callIndex: 1, effect: 'MAYBE' as never, requirement: 'write' }] }],
    ['data.onDenial', { onDenial: 'shrug' as never }],
    ['data.round', { round: 1 }],
  ])('refuses an approval request whose %s is malformed', (field, extra) => {
    spec.given(responded().events).when(requestApproval(extra)).thenRejects(InvalidFieldError, { field });
  });

  it('asks approval only for calls that have not started, and lets a tool require it whatever its effect', () => {
    const started = responded().startTool(LEASE, 0, 0, READ, T0);
    spec
      .given(started.events)
      .when(requestApproval({ calls: [{ callIndex: 0, effect: 'READ_ONLY', requirement: 'tool' }] }))
      .thenRejects(InvalidFieldError, { field: 'data.calls[0].callIndex' });
    expect(spec.given(responded().events).when(requestApproval({ calls: [{ callIndex: 0, effect: 'READ_ONLY', requirement: 'tool' }] })).decision.kind).toBe('accepted');
  });

  it('records a pre-approval once per step, and only for a write', () => {
    const once = responded().preApprove(LEASE, 0, 1, APPEND, T0);
    const again = spec.given(once.events).when({
      type: 'RecordPreApproval',
      data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', agent: 'demo-agent' },
      metadata: { now: T0 },
    });
    expect(again.decision).toEqual({ kind: 'accepted', events: [] });
    spec
      .given(responded().events)
      .when({ type: 'RecordPreApproval', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, toolName: 'clock.now', effect: 'READ_ONLY', agent: 'demo-agent' }, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field: 'data.effect' });
    spec
      .given(responded().events)
      .when({ type: 'RecordPreApproval', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', agent: 'other' }, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field: 'data.agent' });
  });
});

describe('run decider: a pre-approved write starts in one append', () => {
  const start = (tool: StepTool, now = T0 + SECOND): StartStep => ({
    type: 'StartStep',
    data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, tool },
    metadata: { now },
  });

  it('records ToolCallPreApproved, then the fence, in one decision', () => {
    const { decision, stateAfter } = spec.given(responded().events).when(start({ ...APPEND, preApprovedBy: 'demo-agent' }));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [
        { type: 'ToolCallPreApproved', data: { stepId: 'run-1/r0/t1', round: 0, callIndex: 1, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', agent: 'demo-agent', approvedAt: T0 + SECOND } },
        { type: 'StepStarted', data: { stepId: 'run-1/r0/t1', kind: 'tool', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' } },
      ],
    });
    expect(stateAfter.approvals.has('run-1/r0/t1')).toBe(true);
    expect(stateAfter.inFlightWrite).toMatchObject({ stepId: 'run-1/r0/t1' });
  });

  it('the same events as a pre-approval then a fence in two appends', () => {
    const two = responded().preApprove(LEASE, 0, 1, APPEND, T0 + SECOND).send(start(APPEND));
    const one = spec.given(responded().events).when(start({ ...APPEND, preApprovedBy: 'demo-agent' }));
    expect(one.decision).toEqual({ kind: 'accepted', events: two.events.slice(-2) });
  });

  it('records no second pre-approval for an approved step', () => {
    const approved = responded().preApprove(LEASE, 0, 1, WRITE, T0);
    spec
      .given(approved.events)
      .when(start({ ...WRITE, preApprovedBy: 'demo-agent' }))
      .then([{ type: 'StepStarted', data: expect.objectContaining({ stepId: 'run-1/r0/t1' }) as never }]);
  });

  it('appends nothing when the fence is refused, and names the field of a bad pre-approval', () => {
    const completed = responded().startTool(LEASE, 0, 1, APPEND, T0).executed(LEASE, 0, 1, null, T0);
    spec.given(completed.events).when(start({ ...APPEND, preApprovedBy: 'demo-agent' })).thenRejects(StepAlreadyCompletedError);
    spec.given(responded().events).when(start({ ...APPEND, preApprovedBy: 'other' })).thenRejects(InvalidFieldError, { field: 'data.tool.preApprovedBy' });
    spec.given(responded().events).when(start({ ...READ, preApprovedBy: 'demo-agent' })).thenRejects(InvalidFieldError, { field: 'data.tool.effect' });
    spec
      .given(responded().events)
      .when(start({ ...APPEND, refused: true, preApprovedBy: 'demo-agent' }))
      .thenRejects(InvalidFieldError, { field: 'data.tool.preApprovedBy' });
  });

  it('a lost lease or a cancel wins over the pre-approval', () => {
    const stale = { ...start({ ...APPEND, preApprovedBy: 'demo-agent' }) };
    const lost = spec.given(responded().events).when({ ...stale, data: { ...stale.data, attempt: 2 } });
    expect(lost.decision.kind).toBe('leaseLost');
    const cancelled = responded().send({ type: 'RequestCancel', data: { runId: 'run-1', requestedBy: BOB }, metadata: { now: T0 } });
    const { decision } = spec.given(cancelled.events).when(stale);
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunCancelled' }] });
  });
});

describe('run decider: a tool waits for input', () => {
  const submit = (extra: Partial<SubmitInput['data']> = {}): SubmitInput => ({
    type: 'SubmitInput',
    data: { runId: 'run-1', input: { ticket: 'T-7' }, submittedBy: BOB, ...extra },
    metadata: { now: T0 + 30 * SECOND },
  });
  const asking = () =>
    responded()
      .startTool(LEASE, 0, 0, READ, T0)
      .send({ type: 'RequestInput', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, prompt: 'Which ticket?' }, metadata: { now: T0 + SECOND } });

  it('a read-only tool asks: the run waits for input, holding no lease', () => {
    const state = foldEvents(decider, asking().events);
    expect(asking().events.at(-1)).toMatchObject({ type: 'InputRequested', data: { stepId: 'run-1/r0/t0', toolName: 'clock.now', prompt: 'Which ticket?' } });
    expect(state).toMatchObject({ status: 'WAITING_FOR_INPUT', lease: null, pendingInput: { stepId: 'run-1/r0/t0' } });
  });

  it('submitted input queues the run again and is kept for the step that asked', () => {
    const { decision, stateAfter } = spec.given(asking().events).when(submit());
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'InputSubmitted', data: { stepId: 'run-1/r0/t0', input: { ticket: 'T-7' }, submittedBy: BOB } }] });
    expect(stateAfter).toMatchObject({ status: 'QUEUED', pendingInput: null, resumedAfterPause: true });
    expect(stateAfter.inputs.get('run-1/r0/t0')).toEqual({ ticket: 'T-7' });
  });

  it('refuses input for a run that does not wait for it, and a second submission', () => {
    spec.given(responded().events).when(submit()).thenRejects(RunNotWaitingError, { code: 'RUN_NOT_WAITING_FOR_INPUT' });
    spec.given(asking().send(submit()).events).when(submit()).thenRejects(RunNotWaitingError, { status: 'QUEUED' });
    spec.given(asking().events).when(submit({ submittedBy: 'bob' as never })).thenRejects(InvalidFieldError, { field: 'data.submittedBy' });
    spec.given(asking().events).when(submit({ submittedBy: { kind: 'bus', id: '' } })).thenRejects(InvalidFieldError, { field: 'data.submittedBy.id' });
  });

  it('a write never waits for input in flight, and a tool asks only from a started step', () => {
    const writing = responded().startTool(LEASE, 0, 1, WRITE, T0);
    spec
      .given(writing.events)
      .when({ type: 'RequestInput', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, prompt: 'sure?' }, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field: 'data.callIndex' });
    spec
      .given(responded().events)
      .when({ type: 'RequestInput', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, prompt: 'which?' }, metadata: { now: T0 } })
      .thenRejects(StepNotStartedError);
  });
});
