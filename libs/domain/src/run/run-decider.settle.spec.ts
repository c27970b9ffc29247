import { InvalidFieldError } from '../errors/invalid-field.error';
import { RunAlreadySettledError, RunNotReapableError, WriteInFlightError } from '../errors/run-rule-violations';
import { RunHistory } from '../testing/run-history';
import { runDeciderSpecification } from '../testing/run-decider-specification';
import type { FailureInfo, RunEvent } from './run-events';
import { createRunDecider } from './run-decider';
import type { FailRun, StepTool } from './run-commands';
import type { TerminationReason } from './termination-reason';
import { apiKeyPrincipal } from '../principal/principal';

const ALICE = apiKeyPrincipal('alice');

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const WORKER = 'worker:host-a:101';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const spec = runDeciderSpecification(decider);
const history = (mode: 'queued' | 'interactive' = 'queued') =>
  new RunHistory(decider).request(T0, mode).claim(mode === 'queued' ? WORKER : 'interactive:host-a:101', T0);
const SERVER_ERROR: FailureInfo = { failureClass: 'serverError', message: 'HTTP 503' };
const AUTH: FailureInfo = { failureClass: 'auth', message: 'HTTP 401' };
const toolCalls = { type: 'toolCalls', calls: [{ toolName: 'files.append', arguments: {} }] } as const;
const IDEMPOTENT: StepTool = { name: 'files.write', effect: 'IDEMPOTENT_WRITE' };
const NON_IDEMPOTENT: StepTool = { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' };
const withWriteInFlight = (tool: StepTool) => history().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, tool, T0);
const fail = (error: FailureInfo, lease = LEASE, reason?: string): FailRun => ({
  type: 'FailRun',
  data: { runId: 'run-1', ...lease, error, reason: reason as TerminationReason | undefined },
  metadata: { now: T0 + 10 * SECOND },
});
const lastEvent = (decision: { kind: string; events?: readonly RunEvent[] }) => decision.events?.at(-1);

describe('run decider: completing', () => {
  it('settles the run COMPLETED with its final answer', () => {
    spec
      .given(history().events)
      .when({ type: 'CompleteRun', data: { runId: 'run-1', ...LEASE, finalAnswer: 'done' }, metadata: { now: T0 + SECOND } })
      .then([{ type: 'RunCompleted', data: { runId: 'run-1', reason: 'COMPLETED', finalAnswer: 'done', attempt: 1, completedAt: T0 + SECOND } }]);
  });

  it('settles a run only once: a second settle finds the lease gone', () => {
    spec
      .given(history().complete(LEASE, 'done', T0).events)
      .when({ type: 'CompleteRun', data: { runId: 'run-1', ...LEASE, finalAnswer: 'again' }, metadata: { now: T0 + SECOND } })
      .thenLeaseLost();
    spec.given(history().complete(LEASE, 'done', T0).events).when(fail(SERVER_ERROR)).thenLeaseLost();
  });

  it('lets a requested cancel win over a late completion', () => {
    const { decision } = spec
      .given(history().cancel(T0).events)
      .when({ type: 'CompleteRun', data: { runId: 'run-1', ...LEASE, finalAnswer: 'done' }, metadata: { now: T0 + SECOND } });
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunCancelled' }] });
  });

  it('refuses to complete while a write is in flight', () => {
    spec
      .given(withWriteInFlight(IDEMPOTENT).events)
      .when({ type: 'CompleteRun', data: { runId: 'run-1', ...LEASE, finalAnswer: 'done' }, metadata: { now: T0 } })
      .thenRejects(WriteInFlightError);
  });

  it('ignores the settle of a stale owner', () => {
    spec
      .given(history().events)
      .when({ type: 'CompleteRun', data: { runId: 'run-1', owner: 'worker:host-b:9', attempt: 1, finalAnswer: 'x' }, metadata: { now: T0 } })
      .thenLeaseLost();
  });
});

describe('run decider: failing a queued run', () => {
  it('requeues a retryable failure after 30 s, then 60 s, then 120 s', () => {
    const expectRequeue = (events: readonly RunEvent[], attempt: number, requeues: number, delaySeconds: number) => {
      const { decision } = spec.given(events).when(fail(SERVER_ERROR, { owner: WORKER, attempt }));
      expect(decision).toEqual({
        kind: 'accepted',
        events: [
          {
            type: 'RunRequeued',
            data: {
              runId: 'run-1',
              cause: 'failure',
              requeues,
              notBefore: T0 + 10 * SECOND + delaySeconds * SECOND,
              failure: SERVER_ERROR,
              previousOwner: WORKER,
              inFlightWrite: null,
              requeuedAt: T0 + 10 * SECOND,
            },
          },
        ],
      });
    };
    const h = history();
    expectRequeue(h.events, 1, 1, 30);
    h.fail({ owner: WORKER, attempt: 1 }, SERVER_ERROR, T0).claim(WORKER, T0 + 40 * SECOND);
    expectRequeue(h.events, 2, 2, 60);
    h.fail({ owner: WORKER, attempt: 2 }, SERVER_ERROR, T0 + 41 * SECOND).claim(WORKER, T0 + 200 * SECOND);
    expectRequeue(h.events, 3, 3, 120);
  });

  it("waits a rate-limited dependency's Retry-After when it is longer than the backoff, never more than the backoff's cap", () => {
    const RATE_LIMIT: FailureInfo = { failureClass: 'rateLimit', message: 'HTTP 429 (retry after 120000 ms)' };
    const notBeforeWith = (retryAfterMs: number | undefined) => {
      const command = fail(RATE_LIMIT, LEASE, 'PROVIDER_FAILED');
      const { decision } = spec.given(history().events).when({ ...command, data: { ...command.data, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) } });
      const event = lastEvent(decision as never);
      expect(event).toMatchObject({ type: 'RunRequeued', data: { cause: 'failure', failure: RATE_LIMIT } });
      // The failure is recorded as it was: no field of the event carries the Retry-After, only the due time.
      expect(Object.keys((event as { data: object }).data).sort()).toEqual(['cause', 'failure', 'inFlightWrite', 'notBefore', 'previousOwner', 'requeuedAt', 'requeues', 'runId']);
      return (event as { data: { notBefore: number } }).data.notBefore - (T0 + 10 * SECOND);
    };
    expect(notBeforeWith(undefined)).toBe(30 * SECOND); // the backoff
    expect(notBeforeWith(5 * SECOND)).toBe(30 * SECOND); // shorter than the backoff: the backoff
    expect(notBeforeWith(120 * SECOND)).toBe(120 * SECOND); // longer: the server's wait
    expect(notBeforeWith(120.4 * SECOND)).toBe(120.4 * SECOND);
    expect(notBeforeWith(3600 * SECOND)).toBe(600 * SECOND); // an hour: the cap (600 s by default)
  });

  it('refuses a Retry-After that is not a non-negative number of milliseconds, naming the field', () => {
    for (const retryAfterMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '120' as unknown as number]) {
      const command = fail(SERVER_ERROR);
      spec.given(history().events).when({ ...command, data: { ...command.data, retryAfterMs } }).thenRejects(InvalidFieldError, { field: 'data.retryAfterMs' });
    }
  });

  it('dead-letters with RETRIES_EXHAUSTED once MAX_REQUEUES requeues are spent (1 + 3 executions)', () => {
    const h = history();
    for (let attempt = 1; attempt <= 3; attempt++) {
      h.fail({ owner: WORKER, attempt }, SERVER_ERROR, T0 + attempt * 1000 * SECOND).claim(WORKER, T0 + (attempt * 1000 + 600) * SECOND);
    }
    const { decision, stateAfter } = spec.given(h.events).when(fail(SERVER_ERROR, { owner: WORKER, attempt: 4 }));
    expect(lastEvent(decision as never)).toMatchObject({ type: 'RunFailed', data: { reason: 'RETRIES_EXHAUSTED', deadLettered: true, attempt: 4 } });
    expect(stateAfter.settlement).toEqual({ status: 'FAILED', reason: 'RETRIES_EXHAUSTED', deadLettered: true });
  });

  it('dead-letters a failure whose class is not retryable with NOT_RETRYABLE', () => {
    const { decision } = spec.given(history().events).when(fail(AUTH));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'NOT_RETRYABLE', deadLettered: true, failure: AUTH } }] });
  });

  it('fails a write whose audit was not stored as AUDIT_PERSISTENCE_FAILED, never retried, whatever the class or budget', () => {
    const { decision } = spec
      .given(history().events)
      .when(fail({ failureClass: 'unknown', message: 'audit not stored', code: 'AUDIT_PERSISTENCE_FAILED' }, LEASE, 'AUDIT_PERSISTENCE_FAILED'));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'AUDIT_PERSISTENCE_FAILED', deadLettered: true } }] });
  });

  it('fails closed on an audit failure even after a cancel was requested', () => {
    const { decision } = spec.given(history().cancel(T0).events).when(fail(SERVER_ERROR, LEASE, 'AUDIT_PERSISTENCE_FAILED'));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'AUDIT_PERSISTENCE_FAILED' } }] });
  });

  it('never retries a run with a non-idempotent write in flight (WRITE_INTERRUPTED), whatever budget and class', () => {
    const { decision } = spec.given(withWriteInFlight(NON_IDEMPOTENT).events).when(fail(SERVER_ERROR));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'RunFailed', data: { reason: 'WRITE_INTERRUPTED', deadLettered: true, inFlightWrite: { stepId: 'run-1/r0/t0', effect: 'NON_IDEMPOTENT_WRITE' } } }],
    });
  });

  it('retries a run with an idempotent write in flight, naming the write and its idempotency key', () => {
    const { decision } = spec.given(withWriteInFlight(IDEMPOTENT).events).when(fail(SERVER_ERROR));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'RunRequeued', data: { inFlightWrite: { stepId: 'run-1/r0/t0', idempotencyKey: 'agent-ledger:run-1/r0/t0' } } }],
    });
  });

  it('ends the run with a deliberate reason whatever budget is left', () => {
    const { decision } = spec.given(history().events).when(fail({ failureClass: 'unknown', message: '20 rounds' }, LEASE, 'MAX_ITERATIONS'));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'MAX_ITERATIONS', deadLettered: false } }] });
  });

  it('lets a requested cancel win over a late failure', () => {
    const { decision } = spec.given(history().cancel(T0).events).when(fail(SERVER_ERROR));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunCancelled' }] });
  });

  it.each([
    ['data.reason', SERVER_ERROR, 'COMPLETED'],
    ['data.error.failureClass', { failureClass: 'flaky', message: 'x' }, undefined],
    ['data.error.message', { failureClass: 'unknown' }, undefined],
  ])('refuses a failure report whose %s is malformed', (field, error, reason) => {
    spec
      .given(history().events)
      .when(fail(error as FailureInfo, LEASE, reason))
      .thenRejects(InvalidFieldError, { field });
  });
});

describe('run decider: failing an interactive run', () => {
  const INTERACTIVE = { owner: 'interactive:host-a:101', attempt: 1 };

  it('settles FAILED and never requeues, even for a retryable class', () => {
    const { decision } = spec.given(history('interactive').events).when(fail(SERVER_ERROR, INTERACTIVE));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'NOT_RETRYABLE', deadLettered: false } }] });
  });

  it('names a provider failure when the segment says so', () => {
    const { decision } = spec.given(history('interactive').events).when(fail(SERVER_ERROR, INTERACTIVE, 'PROVIDER_FAILED'));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'PROVIDER_FAILED' } }] });
  });
});

describe('run decider: reaping expired leases', () => {
  const reap = (now: number) => ({ type: 'ReapRun', data: { runId: 'run-1', reaper: 'reaper:host-c:7' }, metadata: { now } }) as const;

  it('fails an interactive run its caller never claimed within a lease (the caller died), never retried; not before', () => {
    const orphan = new RunHistory(decider).request(T0, 'interactive');
    spec.given(orphan.events).when(reap(T0 + 899 * SECOND)).thenRejects(RunNotReapableError, { status: 'QUEUED', leaseExpiresAt: T0 + 900 * SECOND });
    const { decision, stateAfter } = spec.given(orphan.events).when(reap(T0 + 900 * SECOND));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [{ type: 'RunFailed', data: { reason: 'NOT_RETRYABLE', deadLettered: false, failure: { code: 'INTERACTIVE_CALLER_LOST', failureClass: 'connection' } } }],
    });
    expect(stateAfter.status).toBe('FAILED');
    // A queued run waiting for a worker is never reaped, however long it waits.
    spec.given(new RunHistory(decider).request(T0).events).when(reap(T0 + 99_999 * SECOND)).thenRejects(RunNotReapableError, { status: 'QUEUED' });
  });

  it('refuses to reap a run whose lease is still valid', () => {
    spec.given(history().events).when(reap(T0 + 899 * SECOND)).thenRejects(RunNotReapableError, { leaseExpiresAt: T0 + 900 * SECOND });
  });

  it('loses to a renewal that landed before it decided', () => {
    const renewed = history().send({ type: 'RenewLease', data: { runId: 'run-1', ...LEASE }, metadata: { now: T0 + 800 * SECOND } });
    spec.given(renewed.events).when(reap(T0 + 901 * SECOND)).thenRejects(RunNotReapableError);
  });

  it('requeues an expired run at once, counting it against the shared budget', () => {
    spec
      .given(history().events)
      .when(reap(T0 + 901 * SECOND))
      .then([
        {
          type: 'RunRequeued',
          data: {
            runId: 'run-1',
            cause: 'leaseExpired',
            requeues: 1,
            notBefore: T0 + 901 * SECOND,
            failure: {
              failureClass: 'connection',
              code: 'LEASE_EXPIRED',
              message: `The lease of ${WORKER} (attempt 1) expired at ${T0 + 900 * SECOND}; reaped by reaper:host-c:7`,
            },
            previousOwner: WORKER,
            inFlightWrite: null,
            requeuedAt: T0 + 901 * SECOND,
          },
        },
      ]);
  });

  it('shares the budget between failure retries and stale reclaims', () => {
    const h = history()
      .fail(LEASE, SERVER_ERROR, T0 + SECOND)
      .claim(WORKER, T0 + 100 * SECOND)
      .reap(T0 + 2000 * SECOND)
      .claim(WORKER, T0 + 2001 * SECOND)
      .fail({ owner: WORKER, attempt: 3 }, SERVER_ERROR, T0 + 2002 * SECOND)
      .claim(WORKER, T0 + 2200 * SECOND);
    const { decision } = spec.given(h.events).when(reap(T0 + 5000 * SECOND));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'RETRIES_EXHAUSTED', deadLettered: true, attempt: 4 } }] });
  });

  it('dead-letters a reaped run with a non-idempotent write in flight, whatever budget is left', () => {
    const { decision } = spec.given(withWriteInFlight(NON_IDEMPOTENT).events).when(reap(T0 + 5000 * SECOND));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'WRITE_INTERRUPTED', deadLettered: true } }] });
  });

  it('requeues a reaped run with an idempotent write in flight, keeping its idempotency key for the retry', () => {
    const { decision, stateAfter } = spec.given(withWriteInFlight(IDEMPOTENT).events).when(reap(T0 + 5000 * SECOND));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunRequeued', data: { inFlightWrite: { idempotencyKey: 'agent-ledger:run-1/r0/t0' } } }] });
    expect(stateAfter.status).toBe('QUEUED');
  });

  it('fails a reaped interactive run instead of requeueing it', () => {
    const { decision } = spec.given(history('interactive').events).when(reap(T0 + 901 * SECOND));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'NOT_RETRYABLE', deadLettered: false } }] });
  });

  it('settles a reaped run CANCELLED when a cancel was requested', () => {
    const { decision } = spec.given(history().cancel(T0).events).when(reap(T0 + 901 * SECOND));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'RunCancelled' }] });
  });

  it('refuses to reap a run that is not running', () => {
    spec.given(new RunHistory(decider).request(T0).events).when(reap(T0 + 5000 * SECOND)).thenRejects(RunNotReapableError, { status: 'QUEUED' });
  });
});

describe('run decider: cancelling', () => {
  const cancel = { type: 'RequestCancel', data: { runId: 'run-1', requestedBy: ALICE, reason: 'wrong input' }, metadata: { now: T0 + SECOND } } as const;

  it('settles a queued run at once', () => {
    spec
      .given(new RunHistory(decider).request(T0).events)
      .when(cancel)
      .then([
        { type: 'CancelRequested', data: { runId: 'run-1', requestedBy: ALICE, reason: 'wrong input', requestedAt: T0 + SECOND } },
        { type: 'RunCancelled', data: { runId: 'run-1', reason: 'CANCELLED', requestedBy: ALICE, inFlightWrite: null, cancelledAt: T0 + SECOND } },
      ]);
  });

  it('only records the request for a running run: its segment stops at the next boundary', () => {
    spec
      .given(history().events)
      .when(cancel)
      .then([{ type: 'CancelRequested', data: { runId: 'run-1', requestedBy: ALICE, reason: 'wrong input', requestedAt: T0 + SECOND } }]);
  });

  it('accepts a repeated request and records nothing more', () => {
    spec.given(history().cancel(T0).events).when(cancel).thenNothing();
  });

  it('refuses to cancel a settled run', () => {
    spec.given(history().complete(LEASE, 'done', T0).events).when(cancel).thenRejects(RunAlreadySettledError, { status: 'COMPLETED' });
  });
});

describe('run decider: audit gaps', () => {
  const executedWrite = () =>
    history().startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0).startTool(LEASE, 0, 0, NON_IDEMPOTENT, T0).executed(LEASE, 0, 0, null, T0);
  const gap = { type: 'ReportAuditGap', data: { runId: 'run-1', stepId: 'run-1/r0/t0', detectedBy: 'audit-gap-saga' }, metadata: { now: T0 + 60 * SECOND } } as const;

  it('fails an unsettled run as AUDIT_MISSING, not retryable, and records the gap', () => {
    const { decision, stateAfter } = spec.given(executedWrite().events).when(gap);
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [
        { type: 'AuditGapDetected', data: { stepId: 'run-1/r0/t0', effect: 'NON_IDEMPOTENT_WRITE', runAlreadySettled: false } },
        { type: 'RunFailed', data: { reason: 'AUDIT_MISSING', deadLettered: true, failure: { failureClass: 'unknown' } } },
      ],
    });
    expect(stateAfter.status).toBe('FAILED');
  });

  it('only records the gap on a run that already settled', () => {
    const { decision } = spec.given(executedWrite().complete(LEASE, 'done', T0 + SECOND).events).when(gap);
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'AuditGapDetected', data: { runAlreadySettled: true } }] });
  });

  it('records each gap once, however often it is reported', () => {
    spec.given(executedWrite().send(gap).events).when(gap).thenNothing();
  });

  it('refuses a report naming a step that is not an executed write', () => {
    spec
      .given(executedWrite().events)
      .when({ ...gap, data: { ...gap.data, stepId: 'run-1/r0/llm' } })
      .thenRejects(InvalidFieldError, { field: 'data.stepId' });
  });
});
