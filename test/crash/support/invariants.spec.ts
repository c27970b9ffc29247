/**
 * The crash checks are only worth their silence if they speak when an
 * invariant breaks: each case here breaks one on a synthetic history.
 */
import type { AuditReviewReport, RunStatusRow, StepRow } from '@agent-ledger/projections';
import type { LedgerLine } from '../../../apps/agent-ledger/src/config/crash-test/test-ledger.tools';
import type { History, HistoryEvent } from './history';
import type { SubmittedRun } from './invariants';
import { checkInvariants } from './invariants';
import { compareWithHistory } from './read-models';

const R = 'run-a';
const owner1 = 'worker:h:1:s1';
const owner2 = 'worker:h:2:s1';

/** A run's events, from (type, data) pairs; revisions and positions in order. */
function stream(...events: Array<[string, Record<string, unknown>]>): HistoryEvent[] {
  return events.map(([type, data], revision) => ({ type, revision, position: `${revision}:${revision}`, data: { runId: R, ...data } }));
}
const step = (n: string) => `${R}/${n}`;
const line = (tool: string, stepId: string, attempt: number): LedgerLine => ({ tool, runId: R, stepId, idempotencyKey: `agent-ledger:${stepId}`, attempt, pid: 1, at: 0, value: null });
const audit = (stepId: string, effect: string | null, attempt = 1): HistoryEvent => ({ type: 'AuditRecorded', revision: 0, position: '0:0', data: { runId: R, stepId, effect, attempt } });
const history = (events: HistoryEvent[], ledger: LedgerLine[], audits: HistoryEvent[] = []): History => ({
  runs: new Map([[R, events]]),
  audits: new Map([[R, audits.map((a, i) => ({ ...a, revision: i }))]]),
  heads: {},
  ledger,
  unreadableLedgerLines: [],
});
const submitted: SubmittedRun[] = [{ runId: R, agent: 'mixer', mode: 'queued' }];

/** A queued run: claimed, reaped in the middle of an idempotent write, retried with the same key, completed. */
function goodRun(): { events: HistoryEvent[]; ledger: LedgerLine[]; audits: HistoryEvent[] } {
  const events = stream(
    ['RunRequested', { mode: 'queued' }],
    ['RunClaimed', { owner: owner1, attempt: 1 }],
    ['StepStarted', { stepId: step('r0/llm'), kind: 'llm', owner: owner1, attempt: 1 }],
    ['ModelResponded', { stepId: step('r0/llm') }],
    ['ToolCallPreApproved', { stepId: step('r0/t0') }],
    ['StepStarted', { stepId: step('r0/t0'), kind: 'tool', toolName: 'ledger.put', effect: 'IDEMPOTENT_WRITE', owner: owner1, attempt: 1 }],
    ['RunRequeued', { cause: 'leaseExpired', inFlightWrite: { stepId: step('r0/t0'), attempt: 1 } }],
    ['RunClaimed', { owner: owner2, attempt: 2 }],
    ['StepStarted', { stepId: step('r0/t0'), kind: 'tool', toolName: 'ledger.put', effect: 'IDEMPOTENT_WRITE', owner: owner2, attempt: 2 }],
    ['ToolExecuted', { stepId: step('r0/t0'), toolName: 'ledger.put', effect: 'IDEMPOTENT_WRITE', outcome: 'succeeded', attempt: 2, error: null }],
    ['StepStarted', { stepId: step('r1/llm'), kind: 'llm', owner: owner2, attempt: 2 }],
    ['ModelResponded', { stepId: step('r1/llm') }],
    ['RunCompleted', { attempt: 2, reason: 'COMPLETED' }],
  );
  return {
    events,
    ledger: [line('ledger.put', step('r0/t0'), 1), line('ledger.put', step('r0/t0'), 2)],
    audits: [audit(step('r0/llm'), null), audit(step('r0/t0'), 'IDEMPOTENT_WRITE', 2), audit(step('r1/llm'), null, 2)],
  };
}

const invariantsOf = (h: History, runs = submitted) => checkInvariants(h, runs).violations.map((v) => v.invariant);

describe('the crash checks', () => {
  it('find nothing wrong in a run reaped mid-write and retried with the same key', () => {
    const { events, ledger, audits } = goodRun();
    const { violations, figures } = checkInvariants(history(events, ledger, audits), submitted);
    expect(violations).toEqual([]);
    expect(figures).toMatchObject({ runs: 1, claims: 2, requeuedLeaseExpired: 1, executions: { 'ledger.put': 2 }, reExecutedSteps: { 'ledger.put': 1 }, byOutcome: { 'queued COMPLETED': 1 } });
  });

  it('a read that ran and left no record is a figure, a write that did is a violation (2)', () => {
    const { events, ledger, audits } = goodRun();
    // A read of round 1 ran and its process died before the read's one commit (start, result, audit).
    const read = checkInvariants(history(events, [...ledger, line('ledger.read', step('r1/t0'), 2)], audits), submitted);
    expect(read.violations).toEqual([]);
    expect(read.figures.readsWithoutRecord).toBe(1);
    expect(invariantsOf(history(events, [...ledger, line('ledger.put', step('r1/t0'), 2)], audits))).toEqual([2]);
  });

  it('1: a second terminal event, or an event after it', () => {
    const { events, ledger, audits } = goodRun();
    const twice = [...events, { type: 'RunFailed', revision: 13, position: '13:13', data: { runId: R, reason: 'NOT_RETRYABLE' } }];
    expect(invariantsOf(history(twice, ledger, audits))).toEqual([1]);
    const after = [...events, { type: 'StepStarted', revision: 13, position: '13:13', data: { runId: R, stepId: step('r2/llm'), kind: 'llm', owner: owner2, attempt: 2 } }];
    expect(invariantsOf(history(after, ledger, audits))).toContain(1);
  });

  it('2: an event of a segment after its lease was lost, or a write run without its own fence', () => {
    const { events, ledger, audits } = goodRun();
    // The first segment's ToolExecuted lands after the reap.
    const stale = [...events.slice(0, 7), { type: 'ToolExecuted', revision: 7, position: '7:7', data: { runId: R, stepId: step('r0/t0'), toolName: 'ledger.put', effect: 'IDEMPOTENT_WRITE', outcome: 'succeeded', attempt: 1, error: null } }];
    expect(checkInvariants(history(stale, ledger.slice(0, 1), audits), submitted).violations.filter((v) => v.invariant === 2).map((v) => v.message)).toEqual([
      '#7 ToolExecuted appended after its segment lost the lease: the run was QUEUED',
    ]);
    // A write that ran at an attempt that never fenced it.
    expect(invariantsOf(history(events, [...ledger, line('ledger.put', step('r0/t0'), 3)], audits))).toEqual(expect.arrayContaining([2, 5]));
  });

  it('3: an executed write without its audit in a run that completed', () => {
    const { events, ledger, audits } = goodRun();
    expect(invariantsOf(history(events, ledger, audits.filter((a) => a.data['stepId'] !== step('r0/t0'))))).toEqual([3]);
    // ... which is fine when the run failed as not retryable.
    const failed = [...events.slice(0, 12), { type: 'RunFailed', revision: 12, position: '12:12', data: { runId: R, reason: 'AUDIT_MISSING', attempt: 2 } }];
    expect(invariantsOf(history(failed, ledger, audits.filter((a) => a.data['stepId'] !== step('r0/t0'))))).toEqual([]);
  });

  it('4: a NON_IDEMPOTENT_WRITE executed twice for one step', () => {
    const events = stream(
      ['RunRequested', { mode: 'queued' }],
      ['RunClaimed', { owner: owner1, attempt: 1 }],
      ['StepStarted', { stepId: step('r0/t0'), kind: 'tool', toolName: 'ledger.append', effect: 'NON_IDEMPOTENT_WRITE', owner: owner1, attempt: 1 }],
      ['RunFailed', { reason: 'WRITE_INTERRUPTED' }],
    );
    expect(invariantsOf(history(events, [line('ledger.append', step('r0/t0'), 1)]))).toEqual([]);
    expect(invariantsOf(history(events, [line('ledger.append', step('r0/t0'), 1), line('ledger.append', step('r0/t0'), 1)]))).toEqual([4]);
  });

  it('5: a completed step executed again by a retry', () => {
    const { events, ledger, audits } = goodRun();
    // A third segment that executes the step completed at attempt 2.
    const third = [
      ...events.slice(0, 12),
      { type: 'RunRequeued', revision: 12, position: '12:12', data: { runId: R, cause: 'leaseExpired' } },
      { type: 'RunClaimed', revision: 13, position: '13:13', data: { runId: R, owner: 'worker:h:3:s1', attempt: 3 } },
      { type: 'RunCompleted', revision: 14, position: '14:14', data: { runId: R, attempt: 3 } },
    ];
    const violations = checkInvariants(history(third, [...ledger, line('ledger.put', step('r0/t0'), 3)], audits), submitted).violations;
    expect(violations.filter((v) => v.invariant === 5).map((v) => v.message)).toEqual([
      `step ${step('r0/t0')} completed at attempt 2 (#9) and was executed again: ledger lines of attempts 3 (pid 1)`,
    ]);
  });

  it('6: a run lost or left unsettled, an interactive run never claimed included', () => {
    const { events, ledger, audits } = goodRun();
    expect(invariantsOf(history(events, ledger, audits), [...submitted, { runId: 'lost', agent: 'mixer', mode: 'queued' }])).toEqual([6]);
    expect(invariantsOf(history(events.slice(0, 12), ledger, audits))).toEqual([6]);
    const orphan = stream(['RunRequested', { mode: 'interactive' }]);
    expect(checkInvariants(history(orphan, []), [{ runId: R, agent: 'mixer', mode: 'interactive' }]).violations).toEqual([
      expect.objectContaining({ invariant: 6, runId: R, message: 'the interactive run did not reach a terminal status (last event #0 RunRequested)' }),
    ]);
  });

  it('7: a run failed for the audit of a read', () => {
    const events = stream(
      ['RunRequested', { mode: 'queued' }],
      ['RunClaimed', { owner: owner1, attempt: 1 }],
      ['StepStarted', { stepId: step('r0/t0'), kind: 'tool', toolName: 'ledger.read', effect: 'READ_ONLY', owner: owner1, attempt: 1 }],
      ['ToolExecuted', { stepId: step('r0/t0'), toolName: 'ledger.read', effect: 'READ_ONLY', outcome: 'succeeded', attempt: 1, error: null }],
      ['AuditGapDetected', { stepId: step('r0/t0'), effect: 'READ_ONLY' }],
      ['RunFailed', { reason: 'AUDIT_PERSISTENCE_FAILED', failure: { message: `The audit event of write step ${step('r0/t0')} (tool ledger.read, READ_ONLY) of run ${R} was not stored; the run fails closed` } }],
    );
    expect(invariantsOf(history(events, [line('ledger.read', step('r0/t0'), 1)]))).toEqual([7, 7]);
  });

  it('8: a read model that disagrees with the store', () => {
    const { events, ledger, audits } = goodRun();
    const h = history(events, ledger, audits);
    const row = { runId: R, status: 'COMPLETED', reason: 'COMPLETED', attempts: 2, streamRevision: 12, deadLettered: null } as unknown as RunStatusRow;
    const steps: StepRow[] = [
      { stepId: step('r0/llm'), status: 'completed', starts: 1, outcome: 'responded', auditState: 'recorded' },
      { stepId: step('r0/t0'), status: 'completed', starts: 2, outcome: 'succeeded', auditState: 'recorded' },
      { stepId: step('r1/llm'), status: 'completed', starts: 1, outcome: 'responded', auditState: 'recorded' },
    ] as unknown as StepRow[];
    const totals = { writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0, gapsDetected: 0, runsFailedClosed: 0, runsFailedAuditMissing: 0, runsWriteInterrupted: 0, interruptedWrites: 1 };
    const review = { totals } as unknown as AuditReviewReport;
    expect(compareWithHistory(h, new Map([[R, row]]), new Map([[R, steps]]), review)).toEqual([]);
    expect(compareWithHistory(h, new Map([[R, { ...row, status: 'RUNNING' }]]), new Map([[R, steps]]), review).map((v) => v.invariant)).toEqual([8]);
    expect(compareWithHistory(h, new Map([[R, row]]), new Map([[R, steps.slice(1)]]), review)).toHaveLength(1);
    expect(compareWithHistory(h, new Map([[R, row]]), new Map([[R, steps]]), { totals: { ...totals, writesAudited: 0 } } as unknown as AuditReviewReport)).toHaveLength(1);
  });

  it('8: a call a person denied (never started) must show as completed, denied, audited by the decision', () => {
    const events = stream(
      ['RunRequested', { mode: 'queued' }],
      ['RunClaimed', { owner: owner1, attempt: 1 }],
      ['StepStarted', { stepId: step('r0/llm'), kind: 'llm', owner: owner1, attempt: 1 }],
      ['ModelResponded', { stepId: step('r0/llm') }],
      ['ApprovalRequested', { owner: owner1, attempt: 1 }],
      ['ApprovalDenied', { stepIds: [step('r0/t0')] }],
      ['RunFailed', { reason: 'APPROVAL_DENIED', deadLettered: false }],
    );
    const audits = [audit(step('r0/llm'), null), { type: 'ApprovalDecisionRecorded', revision: 1, position: '1:1', data: { runId: R, decision: 'denied', calls: [{ stepId: step('r0/t0') }] } }];
    const h = history(events, [], audits);
    const row = { runId: R, status: 'FAILED', reason: 'APPROVAL_DENIED', attempts: 1, streamRevision: 6, deadLettered: false } as unknown as RunStatusRow;
    const steps: StepRow[] = [
      { stepId: step('r0/llm'), status: 'completed', starts: 1, outcome: 'responded', auditState: 'recorded' },
      { stepId: step('r0/t0'), status: 'completed', starts: 0, outcome: 'denied', auditState: 'recorded' },
    ] as unknown as StepRow[];
    const totals = { writes: 0, writesExecuted: 0, writesAudited: 0, writesWithoutAudit: 0, gapsDetected: 0, runsFailedClosed: 0, runsFailedAuditMissing: 0, runsWriteInterrupted: 0, interruptedWrites: 0 };
    const review = { totals } as unknown as AuditReviewReport;
    expect(compareWithHistory(h, new Map([[R, row]]), new Map([[R, steps]]), review)).toEqual([]);
    expect(compareWithHistory(h, new Map([[R, row]]), new Map([[R, steps.slice(0, 1)]]), review)).toEqual([expect.objectContaining({ invariant: 8, message: expect.stringContaining(`the denied call ${step('r0/t0')} as null`) as string })]);
    const pending = steps.map((s) => (s.stepId === step('r0/t0') ? { ...s, auditState: 'pending' } : s)) as StepRow[];
    expect(compareWithHistory(h, new Map([[R, row]]), new Map([[R, pending]]), review)).toHaveLength(1);
  });
});
