import { EventLog } from './event-builders';
import type { FixtureCall } from './run-event-fixtures';
import { runEvents } from './run-event-fixtures';

/*
 * Runs that wait for a person, as contract events (unit specs and the
 * read-model queries' specs): approved, denied with `tellModel`, denied with
 * `endRun`, cancelled while waiting, pre-approved, waiting for input.
 */

export const T0 = Date.UTC(2026, 0, 1);
export const APPEND: FixtureCall = { callIndex: 1, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE' };
export const READ = 'test.read';

/** Up to the model's answer of round 0 (a read, then the append that needs approval). */
export function untilRoundZeroAnswered(log: EventLog, runId: string) {
  const e = runEvents(runId);
  log.run(e.requested(), e.claimed(), e.llmStarted(0), e.responded(0, false));
  return e;
}

/** Waits for approval of the append, is approved, resumes and completes (the decision also in the audit trail). */
export function approvedRun(log: EventLog, runId: string): void {
  const e = untilRoundZeroAnswered(log, runId);
  log.run(e.approvalRequested(0, [APPEND]), e.granted(0, [1]));
  log.audit(e.audited(1, 0, undefined, null, null), e.decisionRecorded(2, 0, 'approved', [APPEND]));
  log.run(e.claimed(2, T0 + 9000), e.toolStarted(0, 0, READ, 'READ_ONLY', 2, T0 + 9100), e.executed(0, 0, READ, 'READ_ONLY', 'succeeded', 2, T0 + 9200));
  log.run(e.toolStarted(0, 1, APPEND.toolName, APPEND.effect, 2, T0 + 9300), e.executed(0, 1, APPEND.toolName, APPEND.effect, 'succeeded', 2, T0 + 9400));
  log.run(e.llmStarted(1, 2, T0 + 9500), e.responded(1, true, T0 + 9600), e.completed(2, T0 + 9700));
  log.audit(e.audited(3, 0, 0, READ, 'READ_ONLY', T0 + 9250), e.audited(4, 0, 1, APPEND.toolName, APPEND.effect, T0 + 9450), e.audited(5, 1, undefined, null, null, T0 + 9650));
}

/** Waits for approval, is denied with `tellModel`, resumes: the read executes, the append never does, the model answers. */
export function toldModelRun(log: EventLog, runId: string): void {
  const e = untilRoundZeroAnswered(log, runId);
  log.run(e.approvalRequested(0, [APPEND], 'tellModel'), e.denied(0, [1], 'tellModel'));
  log.audit(e.audited(1, 0, undefined, null, null), e.decisionRecorded(2, 0, 'denied', [APPEND]));
  log.run(e.claimed(2, T0 + 9000), e.toolStarted(0, 0, READ, 'READ_ONLY', 2, T0 + 9100), e.executed(0, 0, READ, 'READ_ONLY', 'succeeded', 2, T0 + 9200));
  log.run(e.llmStarted(1, 2, T0 + 9500), e.responded(1, true, T0 + 9600), e.completed(2, T0 + 9700));
  // Resuming past the denied call, the runtime writes an audit record of its own for it (outcome failed).
  const deniedAudit = e.audited(4, 0, 1, APPEND.toolName, APPEND.effect, T0 + 9300);
  log.audit(e.audited(3, 0, 0, READ, 'READ_ONLY', T0 + 9250), { ...deniedAudit, data: { ...deniedAudit.data, outcome: 'failed' } }, e.audited(5, 1, undefined, null, null, T0 + 9650));
}

/** Denied with `endRun`: the RunFailed (APPROVAL_DENIED) follows in the same append. */
export function endedByDenialRun(log: EventLog, runId: string): void {
  const e = untilRoundZeroAnswered(log, runId);
  log.run(
    e.approvalRequested(0, [APPEND]),
    e.denied(0, [1], 'endRun'),
    e.failed('APPROVAL_DENIED', { failureClass: 'clientError', message: 'bob denied test.append: no', code: 'APPROVAL_DENIED' }, null, T0 + 8000),
  );
  log.audit(e.audited(1, 0, undefined, null, null), e.decisionRecorded(2, 0, 'denied', [APPEND]));
}

/** Cancelled while it waited for approval. */
export function cancelledWhileWaitingRun(log: EventLog, runId: string): void {
  const e = untilRoundZeroAnswered(log, runId);
  log.run(e.approvalRequested(0, [APPEND]), e.cancelRequested(T0 + 8500), e.cancelled(null, T0 + 8500));
  log.audit(e.audited(1, 0, undefined, null, null));
}

/** A pre-approved write: recorded right before its fence. */
export function preApprovedRun(log: EventLog, runId: string): void {
  const e = untilRoundZeroAnswered(log, runId);
  log.run(e.preApproved(0, 0, 'test.put', 'IDEMPOTENT_WRITE', T0 + 3900), e.toolStarted(0, 0, 'test.put', 'IDEMPOTENT_WRITE'), e.executed(0, 0, 'test.put', 'IDEMPOTENT_WRITE'));
  log.run(e.llmStarted(1, 1, T0 + 5500), e.responded(1, true, T0 + 5600), e.completed(1, T0 + 5700));
  log.audit(e.audited(1, 0, undefined, null, null), e.audited(2, 0, 0, 'test.put', 'IDEMPOTENT_WRITE'), e.audited(3, 1, undefined, null, null, T0 + 5650));
}

/** A tool asks for input; the input comes; the tool runs again and the run completes. */
export function inputRun(log: EventLog, runId: string): void {
  const e = untilRoundZeroAnswered(log, runId);
  log.run(e.toolStarted(0, 0, 'test.ask', 'READ_ONLY', 1, T0 + 6000), e.inputRequested(0, 0, 'test.ask', T0 + 7000), e.inputSubmitted(0, 0, { ticket: 'T-7' }, T0 + 8000));
  log.run(e.claimed(2, T0 + 9000), e.toolStarted(0, 0, 'test.ask', 'READ_ONLY', 2, T0 + 9100), e.executed(0, 0, 'test.ask', 'READ_ONLY', 'succeeded', 2, T0 + 9200));
  log.run(e.llmStarted(1, 2, T0 + 9500), e.responded(1, true, T0 + 9600), e.completed(2, T0 + 9700));
}

export function everyFlow(): EventLog {
  const log = new EventLog();
  approvedRun(log, 'approved');
  toldModelRun(log, 'told');
  endedByDenialRun(log, 'ended');
  cancelledWhileWaitingRun(log, 'cancelled');
  preApprovedRun(log, 'pre');
  inputRun(log, 'input');
  return log;
}
