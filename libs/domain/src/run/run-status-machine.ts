import type { RunEvent, RunEventType } from './run-events';
import type { RunStatus } from './run-status';
import { isTerminalStatus } from './run-status';

/*
 * The run-status machine, written once: the run's state (evolveRun), the
 * run-status read model and the queue index all take a run's status from
 * `runStatusAfter`. It enforces no rule (the decider refuses an event that
 * may not happen in a status); it only says where each event leads.
 */

/**
 * The status each run event type leads to, or `null` for a type that leaves
 * the status as it is (a step, a lease renewal, a cancel request, an audit
 * gap, a pre-approval, a tool's effect conflict, an operator's requeue of a
 * dead-lettered run, which stays `FAILED`).
 */
export const RUN_STATUS_ENTERED_BY: Readonly<Record<RunEventType, RunStatus | null>> = Object.freeze({
  RunRequested: 'QUEUED',
  RunClaimed: 'RUNNING',
  LeaseRenewed: null,
  StepStarted: null,
  ModelResponded: null,
  ToolExecuted: null,
  RunRequeued: 'QUEUED',
  RunCompleted: 'COMPLETED',
  RunFailed: 'FAILED',
  CancelRequested: null,
  RunCancelled: 'CANCELLED',
  AuditGapDetected: null,
  RunRequeuedByOperator: null,
  ApprovalRequested: 'WAITING_FOR_APPROVAL',
  ToolCallPreApproved: null,
  ToolEffectConflictRecorded: null,
  ApprovalGranted: 'QUEUED',
  ApprovalDenied: 'QUEUED',
  InputRequested: 'WAITING_FOR_INPUT',
  InputSubmitted: 'QUEUED',
});

/**
 * A run's status after `event`, from its status before (`null`: the run was
 * never requested). Only `RunRequested` starts a run, once; a settled run
 * (`COMPLETED`, `FAILED`, `CANCELLED`) never leaves its status; otherwise the
 * event leads where {@link RUN_STATUS_ENTERED_BY} says. Pure and total.
 */
export function runStatusAfter(status: RunStatus | null, event: Pick<RunEvent, 'type'>): RunStatus | null {
  if (status === null) return event.type === 'RunRequested' ? 'QUEUED' : null;
  if (isTerminalStatus(status) || event.type === 'RunRequested') return status;
  return RUN_STATUS_ENTERED_BY[event.type] ?? status;
}
