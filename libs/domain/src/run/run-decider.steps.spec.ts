import { InvalidFieldError } from '../errors/invalid-field.error';
import {
  NonIdempotentWriteReplayError,
  StepAlreadyCompletedError,
  StepNotStartedError,
  WriteInFlightError,
} from '../errors/run-rule-violations';
import { RunHistory } from '../testing/run-history';
import { runDeciderSpecification } from '../testing/run-decider-specification';
import { createRunDecider } from './run-decider';
import type { StepTool } from './run-commands';
import { busPrincipal } from '../principal/principal';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const WORKER = 'worker:host-a:101';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const spec = runDeciderSpecification(decider);
const claimed = () => new RunHistory(decider).request(T0).claim(WORKER, T0);
const toolCalls = { type: 'toolCalls', calls: [{ toolName: 'files.write', arguments: { path: 'a.txt' } }] } as const;
const READ: StepTool = { name: 'clock.now', effect: 'READ_ONLY' };
const IDEMPOTENT: StepTool = { name: 'files.write', effect: 'IDEMPOTENT_WRITE' };
const NON_IDEMPOTENT: StepTool = { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' };

describe('run decider: renewing the lease at a step boundary', () => {
  it('extends the lease of its owner', () => {
    spec
      .given(claimed().events)
      .when({ type: 'RenewLease', data: { runId: 'run-1', ...LEASE }, metadata: { now: T0 + 60 * SECOND } })
      .then([
        {
          type: 'LeaseRenewed',
          data: { runId: 'run-1', ...LEASE, leaseExpiresAt: T0 + 960 * SECOND, renewedAt: T0 + 60 * SECOND },
        },
      ]);
  });

  it('still renews after the expiry while nobody reaped the run: a slow worker is not a dead worker', () => {
    const { decision } = spec
      .given(claimed().events)
      .when({ type: 'RenewLease', data: { runId: 'run-1', ...LEASE }, metadata: { now: T0 + 1000 * SECOND } });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'LeaseRenewed', data: { leaseExpiresAt: T0 + 1900 * SECOND } }] });
  });

  it('tells another owner that it lost the lease, without an error to retry', () => {
    spec
      .given(claimed().events)
      .when({ type: 'RenewLease', data: { runId: 'run-1', owner: 'worker:host-b:202', attempt: 1 }, metadata: { now: T0 } })
      .thenLeaseLost();
  });

  it('tells the same process acting under an earlier claim that it lost the lease', () => {
    const reclaimed = claimed()
      .reap(T0 + 901 * SECOND)
      .claim(WORKER, T0 + 902 * SECOND);
    spec
      .given(reclaimed.events)
      .when({ type: 'RenewLease', data: { runId: 'run-1', ...LEASE }, metadata: { now: T0 + 903 * SECOND } })
      .thenLeaseLost();
  });

  it('answers a requested cancel at the boundary by settling the run CANCELLED', () => {
    spec
      .given(claimed().cancel(T0 + SECOND).events)
      .when({ type: 'RenewLease', data: { runId: 'run-1', ...LEASE }, metadata: { now: T0 + 2 * SECOND } })
      .then([
        {
          type: 'RunCancelled',
          data: { runId: 'run-1', reason: 'CANCELLED', requestedBy: busPrincipal('operator'), inFlightWrite: null, cancelledAt: T0 + 2 * SECOND },
        },
      ]);
  });
});

describe('run decider: starting steps', () => {
  it('starts a model call under a deterministic step id and renews the lease with it', () => {
    spec
      .given(claimed().events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0 }, metadata: { now: T0 + SECOND } })
      .then([
        {
          type: 'StepStarted',
          data: {
            runId: 'run-1',
            stepId: 'run-1/r0/llm',
            kind: 'llm',
            round: 0,
            callIndex: null,
            toolName: null,
            effect: null,
            idempotencyKey: null,
            operationDeadlineSeconds: null,
            owner: WORKER,
            attempt: 1,
            leaseExpiresAt: T0 + 901 * SECOND,
            startedAt: T0 + SECOND,
          },
        },
      ]);
  });

  it('starts a read-only tool call with its idempotency key and no write fence', () => {
    const { decision, stateAfter } = spec
      .given(claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, tool: READ }, metadata: { now: T0 + SECOND } });
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'StepStarted', data: { stepId: 'run-1/r0/t0', kind: 'tool', effect: 'READ_ONLY', idempotencyKey: 'agent-ledger:run-1/r0/t0', operationDeadlineSeconds: null } }],
    });
    expect(stateAfter.inFlightWrite).toBeNull();
  });

  it('fences a write: the in-flight record, with a lease covering the default operation deadline', () => {
    const { decision, stateAfter } = spec
      .given(claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).preApprove(LEASE, 0, 0, IDEMPOTENT, T0).events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, tool: IDEMPOTENT }, metadata: { now: T0 + SECOND } });
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'StepStarted', data: { effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 300, leaseExpiresAt: T0 + 901 * SECOND } }],
    });
    expect(stateAfter.inFlightWrite).toEqual({
      stepId: 'run-1/r0/t0',
      toolName: 'files.write',
      effect: 'IDEMPOTENT_WRITE',
      idempotencyKey: 'agent-ledger:run-1/r0/t0',
      startedAt: T0 + SECOND,
      attempt: 1,
    });
  });

  it('extends the lease past a long write deadline plus the margin, so the write is not reaped mid-call', () => {
    const { decision } = spec
      .given(claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).preApprove(LEASE, 0, 0, NON_IDEMPOTENT, T0).events)
      .when({
        type: 'StartStep',
        data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, tool: { ...NON_IDEMPOTENT, operationDeadlineSeconds: 3600 } },
        metadata: { now: T0 + SECOND },
      });
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ data: { operationDeadlineSeconds: 3600, leaseExpiresAt: T0 + SECOND + 3660 * SECOND } }],
    });
  });

  it('never starts a completed step again: a retry must reuse its recorded result', () => {
    spec
      .given(claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0 }, metadata: { now: T0 + SECOND } })
      .thenRejects(StepAlreadyCompletedError, { stepId: 'run-1/r0/llm' });
  });

  it('never starts a non-idempotent write a second time', () => {
    const started = claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, NON_IDEMPOTENT, T0);
    spec
      .given(started.events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, tool: NON_IDEMPOTENT }, metadata: { now: T0 + SECOND } })
      .thenRejects(NonIdempotentWriteReplayError, { stepId: 'run-1/r0/t0' });
  });

  it('refuses a step while another step\'s write is in flight', () => {
    const started = claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, IDEMPOTENT, T0);
    spec
      .given(started.events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 1, tool: READ }, metadata: { now: T0 + SECOND } })
      .thenRejects(WriteInFlightError, { inFlightStepId: 'run-1/r0/t0' });
  });

  it('starts nothing once a cancel is requested: the run settles CANCELLED instead', () => {
    const { decision } = spec
      .given(claimed().cancel(T0).events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0 }, metadata: { now: T0 + SECOND } });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunCancelled' }] });
  });

  it('starts nothing for a segment that lost the lease', () => {
    spec
      .given(claimed().events)
      .when({ type: 'StartStep', data: { runId: 'run-1', owner: WORKER, attempt: 2, round: 0 }, metadata: { now: T0 } })
      .thenLeaseLost();
  });

  it.each([
    ['data.round', { round: 20 }],
    ['data.round', { round: -1 }],
    ['data.tool', { callIndex: 0 }],
    ['data.tool', { tool: READ }],
    ['data.tool.effect', { callIndex: 0, tool: { name: 'x', effect: 'SOMETIMES' } }],
    ['data.tool.operationDeadlineSeconds', { callIndex: 0, tool: { ...IDEMPOTENT, operationDeadlineSeconds: 0 } }],
  ])('refuses a step whose %s is malformed', (field, override) => {
    spec
      .given(claimed().events)
      .when({ type: 'StartStep', data: { runId: 'run-1', ...LEASE, round: 0, ...override } as never, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field });
  });
});

describe('run decider: recording step results', () => {
  it('records the model response and completes the llm step', () => {
    const { decision, stateAfter } = spec
      .given(claimed().startLlm(LEASE, 0, T0).events)
      .when({ type: 'RecordModelResponse', data: { runId: 'run-1', ...LEASE, round: 0, response: toolCalls }, metadata: { now: T0 + SECOND } });
    expect(decision).toEqual({
      kind: 'accepted',
      events: [{ type: 'ModelResponded', data: { runId: 'run-1', stepId: 'run-1/r0/llm', round: 0, response: toolCalls, respondedAt: T0 + SECOND } }],
    });
    expect(stateAfter.steps.get('run-1/r0/llm')).toMatchObject({ status: 'completed', response: toolCalls });
  });

  it('records a tool execution with the effect and key recorded at its start, and clears the in-flight write', () => {
    const started = claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, IDEMPOTENT, T0);
    const { decision, stateAfter } = spec
      .given(started.events)
      .when({
        type: 'RecordToolExecution',
        data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, outcome: 'succeeded', result: { bytes: 3 } },
        metadata: { now: T0 + SECOND },
      });
    expect(decision).toEqual({
      kind: 'accepted',
      events: [
        {
          type: 'ToolExecuted',
          data: {
            runId: 'run-1',
            stepId: 'run-1/r0/t0',
            round: 0,
            callIndex: 0,
            toolName: 'files.write',
            effect: 'IDEMPOTENT_WRITE',
            idempotencyKey: 'agent-ledger:run-1/r0/t0',
            outcome: 'succeeded',
            result: { bytes: 3 },
            error: null,
            attempt: 1,
            executedAt: T0 + SECOND,
          },
        },
      ],
    });
    expect(stateAfter.inFlightWrite).toBeNull();
  });

  it('records a tool that threw as a failed execution with its failure class', () => {
    const started = claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, READ, T0);
    const { decision } = spec.given(started.events).when({
      type: 'RecordToolExecution',
      data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, outcome: 'failed', error: { failureClass: 'clientError', message: 'bad path' } },
      metadata: { now: T0 },
    });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ data: { outcome: 'failed', result: null, error: { failureClass: 'clientError' } } }] });
  });

  it('still records the result of a write that was in flight when the cancel was requested', () => {
    const started = claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, IDEMPOTENT, T0).cancel(T0);
    const { decision } = spec.given(started.events).when({
      type: 'RecordToolExecution',
      data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, outcome: 'succeeded', result: null },
      metadata: { now: T0 + SECOND },
    });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'ToolExecuted' }] });
  });

  it('accepts a repeated report of a completed step and appends nothing', () => {
    spec
      .given(claimed().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).events)
      .when({ type: 'RecordModelResponse', data: { runId: 'run-1', ...LEASE, round: 0, response: toolCalls }, metadata: { now: T0 } })
      .thenNothing();
  });

  it('refuses a result for a step that was never started', () => {
    spec
      .given(claimed().events)
      .when({ type: 'RecordToolExecution', data: { runId: 'run-1', ...LEASE, round: 0, callIndex: 0, outcome: 'succeeded' }, metadata: { now: T0 } })
      .thenRejects(StepNotStartedError, { stepId: 'run-1/r0/t0' });
  });

  it('records nothing from a segment that lost the lease', () => {
    const reaped = claimed().startLlm(LEASE, 0, T0).reap(T0 + 2000 * SECOND);
    spec
      .given(reaped.events)
      .when({ type: 'RecordModelResponse', data: { runId: 'run-1', ...LEASE, round: 0, response: toolCalls }, metadata: { now: T0 + 2001 * SECOND } })
      .thenLeaseLost();
  });

  it.each([
    ['data.response.type', { type: 'maybe' }],
    ['data.response.calls', { type: 'toolCalls', calls: [] }],
    ['data.response.calls[0].toolName', { type: 'toolCalls', calls: [{ toolName: '', arguments: {} }] }],
    ['data.response.content', { type: 'final', content: 42 }],
  ])('refuses a model response whose %s is malformed', (field, response) => {
    spec
      .given(claimed().startLlm(LEASE, 0, T0).events)
      .when({ type: 'RecordModelResponse', data: { runId: 'run-1', ...LEASE, round: 0, response: response as never }, metadata: { now: T0 } })
      .thenRejects(InvalidFieldError, { field });
  });
});
