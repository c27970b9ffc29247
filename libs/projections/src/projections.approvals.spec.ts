import { apiKeyPrincipal, RunStatus } from '@agent-ledger/domain';
import type { ApprovalRunRow, StoredApprovalRow } from './approvals/approval-rows';
import { APPROVAL_RUNS_TABLE, APPROVALS_TABLE } from './approvals/approval-rows';
import { approvalsProjection } from './approvals/approvals.projection';
import { auditReviewProjection } from './audit-review/audit-review.projection';
import { AUDIT_APPROVAL_DECISIONS_TABLE } from './audit-review/audit-review-rows';
import type { ProjectedEvent } from './core/projected-event';
import { ALL_PROJECTIONS } from './core/projections';
import { runStatusProjection } from './run-status/run-status.projection';
import type { RunStatusRow } from './run-status/run-status-row';
import { RUNS_TABLE } from './run-status/run-status-row';
import { stepsProjection } from './steps/steps.projection';
import { STEP_APPROVALS_TABLE, STEPS_TABLE } from './steps/step-row';
import { APPEND, approvedRun, cancelledWhileWaitingRun, endedByDenialRun, everyFlow, inputRun, preApprovedRun, T0, toldModelRun, untilRoundZeroAnswered } from './testing/approval-flows';
import { EventLog } from './testing/event-builders';
import { projectInMemory } from './testing/in-memory-row-store';
import { runEvents } from './testing/run-event-fixtures';

/** The run-status row after each prefix of the log's events of one run. */
function runRowsAlong(log: EventLog, runId: string): RunStatusRow[] {
  const events = log.events.filter((e) => e.streamName === `run-${runId}`);
  return events.map((_, i) => projectInMemory([runStatusProjection], events.slice(0, i + 1)).rows(RUNS_TABLE)[0] as RunStatusRow);
}

function rowOf<R>(rows: R[], key: (r: R) => string, id: string): R | undefined {
  return rows.find((r) => key(r) === id);
}

describe('run status: runs that wait for a person', () => {
  it('waits for approval holding no lease, with when and which round; the grant queues it again; then it completes', () => {
    const log = new EventLog();
    approvedRun(log, 'a');
    const along = runRowsAlong(log, 'a');
    const waiting = along[4];
    expect(waiting).toMatchObject({ status: 'WAITING_FOR_APPROVAL', leaseOwner: null, leaseExpiresAt: null, waitingSince: T0 + 7000, approvalRound: 0, inputStepId: null, updatedAt: T0 + 7000 });
    expect(along[5]).toMatchObject({ status: 'QUEUED', waitingSince: null, approvalRound: null, inputStepId: null, updatedAt: T0 + 8000 });
    expect(along.at(-1)).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED', attempts: 2, requeues: 0, stepsTotal: 4, nonIdempotentWriteSteps: 1, waitingSince: null });
  });

  it('waits for input on the asking step; the input queues it again', () => {
    const log = new EventLog();
    inputRun(log, 'i');
    const along = runRowsAlong(log, 'i');
    expect(along[5]).toMatchObject({ status: 'WAITING_FOR_INPUT', leaseOwner: null, waitingSince: T0 + 7000, approvalRound: null, inputStepId: 'i/r0/t0', currentStepId: 'i/r0/t0' });
    expect(along[6]).toMatchObject({ status: 'QUEUED', waitingSince: null, inputStepId: null, updatedAt: T0 + 8000 });
    expect(along.at(-1)).toMatchObject({ status: 'COMPLETED', stepsTotal: 3, readOnlySteps: 1, currentStepId: null });
  });

  it('a tellModel denial queues the run again; an endRun denial is settled FAILED APPROVAL_DENIED by the RunFailed that follows it', () => {
    const log = new EventLog();
    toldModelRun(log, 't');
    endedByDenialRun(log, 'e');
    expect(runRowsAlong(log, 't')[5]).toMatchObject({ status: 'QUEUED', waitingSince: null });
    expect(runRowsAlong(log, 't').at(-1)).toMatchObject({ status: 'COMPLETED', stepsTotal: 3, nonIdempotentWriteSteps: 0 });
    const ended = runRowsAlong(log, 'e');
    expect(ended[5]).toMatchObject({ status: 'QUEUED' });
    expect(ended.at(-1)).toMatchObject({
      status: 'FAILED',
      reason: 'APPROVAL_DENIED',
      failureCode: 'APPROVAL_DENIED',
      failureClass: 'clientError',
      settledAt: T0 + 8000,
      waitingSince: null,
      approvalRound: null,
    });
  });

  it('a cancel while waiting settles the run CANCELLED and ends the wait', () => {
    const log = new EventLog();
    cancelledWhileWaitingRun(log, 'c');
    expect(runRowsAlong(log, 'c').at(-1)).toMatchObject({ status: 'CANCELLED', reason: 'CANCELLED', cancelRequested: true, settledAt: T0 + 8500, waitingSince: null, approvalRound: null });
  });

  it('a pre-approval moves nothing but the time of the row', () => {
    const log = new EventLog();
    preApprovedRun(log, 'p');
    const along = runRowsAlong(log, 'p');
    expect(along[4]).toEqual({ ...along[3], streamRevision: 4, updatedAt: T0 + 3900 });
  });

  it('reaches every run status of the domain', () => {
    const log = everyFlow();
    const reached = new Set(['approved', 'told', 'ended', 'cancelled', 'pre', 'input'].flatMap((id) => runRowsAlong(log, id).map((r) => r.status)));
    expect([...reached].sort()).toEqual(Object.values(RunStatus).sort());
  });

  it('ignores the audit trail: an approval decision does not touch the run row', () => {
    const log = new EventLog();
    const e = untilRoundZeroAnswered(log, 'd');
    log.run(e.approvalRequested(0, [APPEND]));
    const before = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE);
    log.audit(e.decisionRecorded(1, 0, 'approved', [APPEND], T0 + 99_000));
    expect(projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE)).toEqual(before);
  });
});

describe('steps: approvals and denials', () => {
  it('marks a pre-approved write preApproved, a granted one granted, and a call that needed none null', () => {
    const log = new EventLog();
    preApprovedRun(log, 'p');
    approvedRun(log, 'a');
    const rows = projectInMemory([stepsProjection], log.events).rows(STEPS_TABLE);
    expect(rows.map((r) => [r.stepId, r.approval, r.outcome, r.auditState])).toEqual([
      ['a/r0/llm', null, 'responded', 'recorded'],
      ['a/r0/t0', null, 'succeeded', 'recorded'],
      ['a/r0/t1', 'granted', 'succeeded', 'recorded'],
      ['a/r1/llm', null, 'responded', 'recorded'],
      ['p/r0/llm', null, 'responded', 'recorded'],
      ['p/r0/t0', 'preApproved', 'succeeded', 'recorded'],
      ['p/r1/llm', null, 'responded', 'recorded'],
    ]);
  });

  it('shows a denied call as a completed step that never started, outcome denied, audited by the decision', () => {
    const log = new EventLog();
    endedByDenialRun(log, 'e');
    toldModelRun(log, 't');
    const rows = projectInMemory([stepsProjection], log.events).rows(STEPS_TABLE);
    expect(rows.find((r) => r.stepId === 'e/r0/t1')).toEqual({
      stepId: 'e/r0/t1',
      runId: 'e',
      round: 0,
      callIndex: 1,
      kind: 'tool',
      toolName: 'test.append',
      effect: 'NON_IDEMPOTENT_WRITE',
      idempotencyKey: null,
      status: 'completed',
      outcome: 'denied',
      starts: 0,
      attempt: null,
      firstStartedAt: null,
      lastStartedAt: null,
      completedAt: T0 + 8000,
      errorClass: null,
      errorMessage: null,
      auditState: 'recorded',
      auditSequence: 2,
      auditOutcome: 'denied',
      auditRecordedAt: T0 + 7900,
      gapDetectedAt: null,
      approval: 'denied',
      conflictServer: null,
      conflictDeclared: null,
      conflictHinted: null,
      conflictTrusted: null,
    });
    // The step's own audit record, written later when a tellModel run resumes, wins over the decision's.
    expect(rows.find((r) => r.stepId === 't/r0/t1')).toMatchObject({
      status: 'completed',
      outcome: 'denied',
      starts: 0,
      idempotencyKey: null,
      approval: 'denied',
      auditState: 'recorded',
      auditSequence: 4,
      auditOutcome: 'failed',
      auditRecordedAt: T0 + 9300,
    });
    expect(rows.find((r) => r.stepId === 't/r0/t0')).toMatchObject({ outcome: 'succeeded', approval: null });
  });

  it('has no row for a call that still waits for its decision, nor for one cancelled while waiting', () => {
    const log = new EventLog();
    cancelledWhileWaitingRun(log, 'c');
    const model = projectInMemory([stepsProjection], log.events);
    expect(model.rows(STEPS_TABLE).map((r) => r.stepId)).toEqual(['c/r0/llm']);
    expect(model.rows(STEP_APPROVALS_TABLE)).toEqual([
      { stepId: 'c/r0/t1', runId: 'c', round: 0, callIndex: 1, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', approval: 'pending' },
    ]);
  });

  it('ends with the same rows whichever store (run or audit) is projected first', () => {
    const log = everyFlow();
    const runSide = log.events.filter((e) => e.streamName.startsWith('run-'));
    const auditSide = log.events.filter((e) => e.streamName.startsWith('audit-'));
    const runFirst = projectInMemory(ALL_PROJECTIONS, [...runSide, ...auditSide]).snapshot();
    expect(projectInMemory(ALL_PROJECTIONS, [...auditSide, ...runSide]).snapshot()).toEqual(runFirst);
    expect(projectInMemory(ALL_PROJECTIONS, interleave(auditSide, runSide)).snapshot()).toEqual(runFirst);
    expect(projectInMemory(ALL_PROJECTIONS, interleave(runSide, auditSide)).snapshot()).toEqual(runFirst);
  });
});

describe('approvals read model', () => {
  const model = (log: EventLog) => projectInMemory([approvalsProjection], log.events);
  const approval = (log: EventLog, id: string): StoredApprovalRow | undefined => rowOf(model(log).rows(APPROVALS_TABLE), (r) => r.approvalId, id);

  it('has one row per request, pending until decided, with the agent of the run and the calls as JSON', () => {
    const log = new EventLog();
    const e = untilRoundZeroAnswered(log, 'w');
    log.run(e.approvalRequested(0, [{ callIndex: 0, toolName: 'test.guarded', effect: 'READ_ONLY', requirement: 'tool' }, APPEND], 'tellModel'));
    expect(model(log).rows(APPROVALS_TABLE)).toEqual([
      {
        approvalId: 'w/r0',
        runId: 'w',
        agent: 'putter',
        round: 0,
        calls: JSON.stringify([
          { stepId: 'w/r0/t0', callIndex: 0, toolName: 'test.guarded', effect: 'READ_ONLY', arguments: { value: 'v0' }, requirement: 'tool' },
          { stepId: 'w/r0/t1', callIndex: 1, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { value: 'v1' }, requirement: 'write' },
        ]),
        onDenial: 'tellModel',
        requestedAt: T0 + 7000,
        state: 'pending',
        decidedBy: null,
        reason: null,
        decidedAt: null,
      },
    ]);
    expect(model(log).rows<ApprovalRunRow>(APPROVAL_RUNS_TABLE)).toEqual([{ runId: 'w', agent: 'putter', pendingApprovalId: 'w/r0' }]);
  });

  it('records who approved or denied, why and when; an endRun denial stays denied when the run then fails', () => {
    const log = everyFlow();
    expect(approval(log, 'approved/r0')).toMatchObject({ state: 'approved', decidedBy: 'key:alice', reason: 'fine', decidedAt: T0 + 8000 });
    expect(approval(log, 'told/r0')).toMatchObject({ state: 'denied', decidedBy: 'key:bob', reason: 'no', decidedAt: T0 + 8000, onDenial: 'tellModel' });
    expect(approval(log, 'ended/r0')).toMatchObject({ state: 'denied', decidedBy: 'key:bob', onDenial: 'endRun' });
    expect(model(log).rows(APPROVALS_TABLE).map((r) => r.approvalId)).toEqual(['approved/r0', 'cancelled/r0', 'ended/r0', 'told/r0']);
    expect(model(log).rows<ApprovalRunRow>(APPROVAL_RUNS_TABLE).every((r) => r.pendingApprovalId === null)).toBe(true);
  });

  it('closes a pending request as cancelled when its run is cancelled, or failed otherwise, while it waits', () => {
    const log = new EventLog();
    cancelledWhileWaitingRun(log, 'c');
    const f = untilRoundZeroAnswered(log, 'f');
    log.run(f.approvalRequested(0, [APPEND]), f.failed('AUDIT_MISSING', { failureClass: 'unknown', message: 'gap' }, null, T0 + 30_000));
    expect(approval(log, 'c/r0')).toMatchObject({ state: 'cancelled', decidedBy: 'key:alice', reason: 'CANCELLED', decidedAt: T0 + 8500 });
    expect(approval(log, 'f/r0')).toMatchObject({ state: 'cancelled', decidedBy: null, reason: 'AUDIT_MISSING', decidedAt: T0 + 30_000 });
  });

  it('keeps a row per round when a run asks again in a later round', () => {
    const log = new EventLog();
    const e = untilRoundZeroAnswered(log, 'r');
    log.run(e.approvalRequested(0, [APPEND], 'tellModel'), e.denied(0, [1], 'tellModel'), e.claimed(2), e.llmStarted(1, 2), e.responded(1, false));
    log.run(e.approvalRequested(1, [APPEND], 'tellModel', T0 + 20_000));
    expect(model(log).rows(APPROVALS_TABLE).map((r) => [r.approvalId, r.state])).toEqual([
      ['r/r0', 'denied'],
      ['r/r1', 'pending'],
    ]);
    log.run(e.granted(1, [1], apiKeyPrincipal('carol'), null, T0 + 21_000));
    expect(approval(log, 'r/r1')).toMatchObject({ state: 'approved', decidedBy: 'key:carol', reason: null, decidedAt: T0 + 21_000 });
  });

  it('ignores a run it never saw requested, and the audit trail', () => {
    const log = new EventLog();
    const e = runEvents('ghost');
    log.run(e.approvalRequested(0, [APPEND]));
    log.audit(e.decisionRecorded(1, 0, 'approved', [APPEND]));
    expect(model(log).rows(APPROVALS_TABLE)).toEqual([]);
    expect(model(log).rows(APPROVAL_RUNS_TABLE)).toEqual([]);
  });
});

describe('audit review: approval decisions', () => {
  it('keeps one row per decision recorded in the audit trail', () => {
    const rows = projectInMemory([auditReviewProjection], everyFlow().events).rows(AUDIT_APPROVAL_DECISIONS_TABLE);
    expect(rows.map((r) => [r.decisionId, r.decision, r.calls, r.decidedBy])).toEqual([
      ['approved@2', 'approved', 1, 'key:alice'],
      ['ended@2', 'denied', 1, 'key:bob'],
      ['told@2', 'denied', 1, 'key:bob'],
    ]);
  });
});

describe('duplicate delivery of the approval events', () => {
  it('gives the same rows when every event is delivered twice, in a row or after the others', () => {
    const log = everyFlow();
    const once = projectInMemory(ALL_PROJECTIONS, log.events).snapshot();
    expect(projectInMemory(ALL_PROJECTIONS, log.events.flatMap((ev) => [ev, ev])).snapshot()).toEqual(once);
    expect(projectInMemory(ALL_PROJECTIONS, [...log.events, ...log.events]).snapshot()).toEqual(once);
  });

  it('skips a late copy of a request, a decision or a settlement', () => {
    const log = everyFlow();
    const once = projectInMemory(ALL_PROJECTIONS, log.events).snapshot();
    const late = log.events.filter((e) => ['ApprovalRequested', 'ApprovalGranted', 'ApprovalDenied', 'InputRequested', 'RunCancelled', 'ApprovalDecisionRecorded'].includes(e.type));
    expect(late.length).toBeGreaterThan(6);
    expect(projectInMemory(ALL_PROJECTIONS, [...log.events, ...late.reverse()] as ProjectedEvent[]).snapshot()).toEqual(once);
  });
});

function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i] as T);
    if (i < b.length) out.push(b[i] as T);
  }
  return out;
}
