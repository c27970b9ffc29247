import type { FailureInfo, ToolEffect } from '@agent-ledger/domain';
import { principalLabel, runStatusAfter } from '@agent-ledger/domain';
import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectedEvent } from '../core/projected-event';
import { isAuditSideEvent } from '../core/projected-event';
import { ProjectionName } from '../core/projection-name';
import type { RunStatusRow } from './run-status-row';
import { RUN_STATUS_STEPS_TABLE, RUNS_TABLE } from './run-status-row';

/**
 * The run-status read model: one row per run (`runs`). Fed by the run
 * streams only; audit events do not change it.
 */
export const runStatusProjection: ProjectionDefinition = {
  name: ProjectionName.RUN_STATUS,
  tables: [RUNS_TABLE, RUN_STATUS_STEPS_TABLE],
  apply(event, rows) {
    if (isAuditSideEvent(event)) return;
    const runId = event.data.runId;
    const current = rows.get(RUNS_TABLE, runId);
    let isNewStep = false;
    if (event.type === 'StepStarted' && current !== undefined && rows.get(RUN_STATUS_STEPS_TABLE, event.data.stepId) === undefined) {
      rows.put(RUN_STATUS_STEPS_TABLE, { stepId: event.data.stepId, runId });
      isNewStep = true;
    }
    const next = evolveRunStatus(current, event, isNewStep);
    if (next !== undefined && next !== current) rows.put(RUNS_TABLE, next);
  },
};

/**
 * The pure mapping of the run-status model: the run's row after `event`.
 * `undefined` until `RunRequested` (events of a run never requested are
 * ignored). `isNewStep` tells whether a `StepStarted` names a step not counted yet.
 */
export function evolveRunStatus(row: RunStatusRow | undefined, event: ProjectedEvent, isNewStep: boolean): RunStatusRow | undefined {
  if (isAuditSideEvent(event)) return row;
  // The status comes from the domain's one status machine; the rest of the row is this model's own.
  const status = runStatusAfter(row?.status ?? null, event);
  if (status === null) return row;
  if (event.type === 'RunRequested') {
    if (row !== undefined) return row;
    const { runId, agent, mode, requestedAt, requestedBy, continuation } = event.data;
    return {
      runId,
      agent,
      mode,
      status,
      reason: null,
      failureClass: null,
      failureCode: null,
      failureMessage: null,
      deadLettered: null,
      attempts: 0,
      requeues: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
      currentStepId: null,
      inFlightStepId: null,
      cancelRequested: false,
      cancelRequestedBy: null,
      startedBy: principalLabel(requestedBy),
      requestedAt,
      lastClaimedAt: null,
      settledAt: null,
      updatedAt: requestedAt,
      stepsTotal: 0,
      llmSteps: 0,
      readOnlySteps: 0,
      idempotentWriteSteps: 0,
      nonIdempotentWriteSteps: 0,
      auditGaps: 0,
      streamRevision: event.revision,
      waitingSince: null,
      approvalRound: null,
      inputStepId: null,
      finalAnswer: null,
      continuationOf: continuation?.of ?? null,
      continuedAs: null,
    };
  }
  if (row === undefined) return undefined;
  // One copy of the row per event, changed in place below (`row` itself, the row store's, is never changed).
  const next: MutableRunStatusRow = { ...row, status, streamRevision: event.revision };
  switch (event.type) {
    case 'RunClaimed': {
      const { owner, attempt, leaseExpiresAt, claimedAt } = event.data;
      next.attempts = attempt;
      next.leaseOwner = owner;
      next.leaseExpiresAt = leaseExpiresAt;
      next.lastClaimedAt = claimedAt;
      return touched(next, claimedAt);
    }
    case 'LeaseRenewed':
      next.leaseExpiresAt = row.leaseOwner === null ? null : event.data.leaseExpiresAt;
      return touched(next, event.data.renewedAt);
    case 'StepStarted': {
      const { stepId, kind, effect, leaseExpiresAt, startedAt } = event.data;
      if (isNewStep) countStep(next, kind === 'llm' ? null : effect);
      const isWriteStep = effect === 'IDEMPOTENT_WRITE' || effect === 'NON_IDEMPOTENT_WRITE';
      next.currentStepId = stepId;
      next.inFlightStepId = isWriteStep ? stepId : row.inFlightStepId;
      next.leaseExpiresAt = row.leaseOwner === null ? row.leaseExpiresAt : leaseExpiresAt;
      return touched(next, startedAt);
    }
    case 'ModelResponded':
      next.currentStepId = row.currentStepId === event.data.stepId ? null : row.currentStepId;
      return touched(next, event.data.respondedAt);
    case 'ToolExecuted': {
      const { stepId, executedAt } = event.data;
      next.currentStepId = row.currentStepId === stepId ? null : row.currentStepId;
      next.inFlightStepId = row.inFlightStepId === stepId ? null : row.inFlightStepId;
      return touched(next, executedAt);
    }
    case 'RunRequeued': {
      const { requeues, failure, inFlightWrite, requeuedAt } = event.data;
      release(next);
      notWaiting(next);
      failureOf(next, failure);
      next.requeues = requeues;
      next.inFlightStepId = inFlightWrite?.stepId ?? null;
      return touched(next, requeuedAt);
    }
    case 'RunCompleted':
      release(next);
      notWaiting(next);
      next.reason = 'COMPLETED';
      next.deadLettered = false;
      next.settledAt = event.data.completedAt;
      next.finalAnswer = event.data.finalAnswer;
      return touched(next, event.data.completedAt);
    case 'RunFailed': {
      const { reason, failure, deadLettered, inFlightWrite, failedAt } = event.data;
      release(next);
      notWaiting(next);
      failureOf(next, failure);
      next.reason = reason;
      next.deadLettered = deadLettered;
      next.settledAt = failedAt;
      next.inFlightStepId = inFlightWrite?.stepId ?? null;
      return touched(next, failedAt);
    }
    case 'CancelRequested':
      next.cancelRequested = true;
      next.cancelRequestedBy = principalLabel(event.data.requestedBy);
      return touched(next, event.data.requestedAt);
    case 'RunCancelled':
      release(next);
      notWaiting(next);
      next.reason = 'CANCELLED';
      next.deadLettered = false;
      next.settledAt = event.data.cancelledAt;
      next.inFlightStepId = event.data.inFlightWrite?.stepId ?? null;
      return touched(next, event.data.cancelledAt);
    case 'AuditGapDetected':
      next.auditGaps = row.auditGaps + 1;
      return touched(next, event.data.detectedAt);
    case 'ApprovalRequested': {
      // The run gives up its lease and waits; none of the round's calls has started.
      const { round, requestedAt } = event.data;
      return touched(waits(next, requestedAt, round, null), requestedAt);
    }
    case 'InputRequested': {
      // The asking step stays started (it runs again with the input): it remains the current step.
      const { stepId, requestedAt } = event.data;
      return touched(waits(next, requestedAt, null, stepId), requestedAt);
    }
    case 'ApprovalGranted':
    case 'ApprovalDenied':
      // Queued again, due at once; an `endRun` denial is settled by the RunFailed appended with it.
      notWaiting(next);
      return touched(next, event.data.decidedAt);
    case 'InputSubmitted':
      notWaiting(next);
      return touched(next, event.data.submittedAt);
    case 'ToolCallPreApproved':
      return touched(next, event.data.approvedAt);
    case 'RunRequeuedByOperator':
      // The run stays FAILED; it says which run continues it.
      next.continuedAs = event.data.continuationRunId;
      return touched(next, event.data.requeuedAt);
    default:
      return next;
  }
}

/** The copy of a row {@link evolveRunStatus} makes per event and changes in place. */
type MutableRunStatusRow = { -readonly [K in keyof RunStatusRow]: RunStatusRow[K] };

function touched(row: MutableRunStatusRow, at: number): RunStatusRow {
  if (at > row.updatedAt) row.updatedAt = at;
  return row;
}

function release(row: MutableRunStatusRow): void {
  row.leaseOwner = null;
  row.leaseExpiresAt = null;
  row.currentStepId = null;
  row.inFlightStepId = null;
}

/** The run gives up its lease and waits for an approval round's decisions or a step's input. */
function waits(row: MutableRunStatusRow, since: number, approvalRound: number | null, inputStepId: string | null): MutableRunStatusRow {
  row.leaseOwner = null;
  row.leaseExpiresAt = null;
  row.waitingSince = since;
  row.approvalRound = approvalRound;
  row.inputStepId = inputStepId;
  return row;
}

function notWaiting(row: MutableRunStatusRow): void {
  row.waitingSince = null;
  row.approvalRound = null;
  row.inputStepId = null;
}

function failureOf(row: MutableRunStatusRow, failure: FailureInfo): void {
  row.failureClass = failure.failureClass;
  row.failureCode = failure.code ?? null;
  row.failureMessage = failure.message;
}

function countStep(row: MutableRunStatusRow, effect: ToolEffect | null): void {
  row.stepsTotal += 1;
  switch (effect) {
    case null:
      row.llmSteps += 1;
      return;
    case 'READ_ONLY':
      row.readOnlySteps += 1;
      return;
    case 'IDEMPOTENT_WRITE':
      row.idempotentWriteSteps += 1;
      return;
    case 'NON_IDEMPOTENT_WRITE':
      row.nonIdempotentWriteSteps += 1;
      return;
  }
}
