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
    const { runId, agent, mode, requestedAt, continuation } = event.data;
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
      ...notWaiting(),
      finalAnswer: null,
      continuationOf: continuation?.of ?? null,
      continuedAs: null,
    };
  }
  if (row === undefined) return undefined;
  const base = { ...row, status, streamRevision: event.revision };
  switch (event.type) {
    case 'RunClaimed': {
      const { owner, attempt, leaseExpiresAt, claimedAt } = event.data;
      return touched({ ...base, attempts: attempt, leaseOwner: owner, leaseExpiresAt, lastClaimedAt: claimedAt }, claimedAt);
    }
    case 'LeaseRenewed':
      return touched({ ...base, leaseExpiresAt: row.leaseOwner === null ? null : event.data.leaseExpiresAt }, event.data.renewedAt);
    case 'StepStarted': {
      const { stepId, kind, effect, leaseExpiresAt, startedAt } = event.data;
      const counts = isNewStep ? countStep(row, kind === 'llm' ? null : effect) : {};
      const isWriteStep = effect === 'IDEMPOTENT_WRITE' || effect === 'NON_IDEMPOTENT_WRITE';
      return touched(
        {
          ...base,
          ...counts,
          currentStepId: stepId,
          inFlightStepId: isWriteStep ? stepId : row.inFlightStepId,
          leaseExpiresAt: row.leaseOwner === null ? row.leaseExpiresAt : leaseExpiresAt,
        },
        startedAt,
      );
    }
    case 'ModelResponded':
      return touched({ ...base, currentStepId: row.currentStepId === event.data.stepId ? null : row.currentStepId }, event.data.respondedAt);
    case 'ToolExecuted': {
      const { stepId, executedAt } = event.data;
      return touched(
        {
          ...base,
          currentStepId: row.currentStepId === stepId ? null : row.currentStepId,
          inFlightStepId: row.inFlightStepId === stepId ? null : row.inFlightStepId,
        },
        executedAt,
      );
    }
    case 'RunRequeued': {
      const { requeues, failure, inFlightWrite, requeuedAt } = event.data;
      return touched(
        { ...base, ...released(), ...notWaiting(), ...failureOf(failure), requeues, inFlightStepId: inFlightWrite?.stepId ?? null },
        requeuedAt,
      );
    }
    case 'RunCompleted':
      return touched(
        {
          ...base,
          ...released(),
          ...notWaiting(),
          reason: 'COMPLETED',
          deadLettered: false,
          settledAt: event.data.completedAt,
          finalAnswer: event.data.finalAnswer,
        },
        event.data.completedAt,
      );
    case 'RunFailed': {
      const { reason, failure, deadLettered, inFlightWrite, failedAt } = event.data;
      return touched(
        { ...base, ...released(), ...notWaiting(), ...failureOf(failure), reason, deadLettered, settledAt: failedAt, inFlightStepId: inFlightWrite?.stepId ?? null },
        failedAt,
      );
    }
    case 'CancelRequested':
      return touched({ ...base, cancelRequested: true, cancelRequestedBy: principalLabel(event.data.requestedBy) }, event.data.requestedAt);
    case 'RunCancelled':
      return touched(
        {
          ...base,
          ...released(),
          ...notWaiting(),
          reason: 'CANCELLED',
          deadLettered: false,
          settledAt: event.data.cancelledAt,
          inFlightStepId: event.data.inFlightWrite?.stepId ?? null,
        },
        event.data.cancelledAt,
      );
    case 'AuditGapDetected':
      return touched({ ...base, auditGaps: row.auditGaps + 1 }, event.data.detectedAt);
    case 'ApprovalRequested': {
      // The run gives up its lease and waits; none of the round's calls has started.
      const { round, requestedAt } = event.data;
      return touched(
        { ...base, leaseOwner: null, leaseExpiresAt: null, waitingSince: requestedAt, approvalRound: round, inputStepId: null },
        requestedAt,
      );
    }
    case 'InputRequested': {
      // The asking step stays started (it runs again with the input): it remains the current step.
      const { stepId, requestedAt } = event.data;
      return touched(
        { ...base, leaseOwner: null, leaseExpiresAt: null, waitingSince: requestedAt, approvalRound: null, inputStepId: stepId },
        requestedAt,
      );
    }
    case 'ApprovalGranted':
    case 'ApprovalDenied':
      // Queued again, due at once; an `endRun` denial is settled by the RunFailed appended with it.
      return touched({ ...base, ...notWaiting() }, event.data.decidedAt);
    case 'InputSubmitted':
      return touched({ ...base, ...notWaiting() }, event.data.submittedAt);
    case 'ToolCallPreApproved':
      return touched(base, event.data.approvedAt);
    case 'RunRequeuedByOperator':
      // The run stays FAILED; it says which run continues it.
      return touched({ ...base, continuedAs: event.data.continuationRunId }, event.data.requeuedAt);
    default:
      return base;
  }
}

function touched(row: RunStatusRow, at: number): RunStatusRow {
  return at > row.updatedAt ? { ...row, updatedAt: at } : row;
}

function released(): Pick<RunStatusRow, 'leaseOwner' | 'leaseExpiresAt' | 'currentStepId' | 'inFlightStepId'> {
  return { leaseOwner: null, leaseExpiresAt: null, currentStepId: null, inFlightStepId: null };
}

function notWaiting(): Pick<RunStatusRow, 'waitingSince' | 'approvalRound' | 'inputStepId'> {
  return { waitingSince: null, approvalRound: null, inputStepId: null };
}

function failureOf(failure: FailureInfo): Pick<RunStatusRow, 'failureClass' | 'failureCode' | 'failureMessage'> {
  return { failureClass: failure.failureClass, failureCode: failure.code ?? null, failureMessage: failure.message };
}

function countStep(row: RunStatusRow, effect: ToolEffect | null): Partial<RunStatusRow> {
  const stepsTotal = row.stepsTotal + 1;
  switch (effect) {
    case null:
      return { stepsTotal, llmSteps: row.llmSteps + 1 };
    case 'READ_ONLY':
      return { stepsTotal, readOnlySteps: row.readOnlySteps + 1 };
    case 'IDEMPOTENT_WRITE':
      return { stepsTotal, idempotentWriteSteps: row.idempotentWriteSteps + 1 };
    case 'NON_IDEMPOTENT_WRITE':
      return { stepsTotal, nonIdempotentWriteSteps: row.nonIdempotentWriteSteps + 1 };
  }
}

