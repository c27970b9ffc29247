import type { InFlightWrite, ToolEffect } from '@agent-ledger/domain';
import { isWrite, principalLabel } from '@agent-ledger/domain';
import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectedEvent } from '../core/projected-event';
import { ProjectionName } from '../core/projection-name';
import type { AuditApprovalDecisionRow, AuditInterruptionRow, AuditRunRow, AuditRunStartRow, AuditWriteRow } from './audit-review-rows';
import { AUDIT_APPROVAL_DECISIONS_TABLE, AUDIT_INTERRUPTIONS_TABLE, AUDIT_RUN_STARTS_TABLE, AUDIT_RUNS_TABLE, AUDIT_WRITES_TABLE } from './audit-review-rows';

/**
 * The audit-review read model: every write with its audit state
 * (`audit_writes`), how runs ended (`audit_runs`) and writes interrupted in
 * flight (`audit_interruptions`), people's approval decisions
 * (`audit_approval_decisions`) and who started each run (`audit_run_starts`). Whether a run failed because of a write is
 * derived when queried, from rows that do not depend on the order in which
 * the run store and the audit store were projected.
 */
export const auditReviewProjection: ProjectionDefinition = {
  name: ProjectionName.AUDIT_REVIEW,
  tables: [AUDIT_WRITES_TABLE, AUDIT_RUNS_TABLE, AUDIT_INTERRUPTIONS_TABLE, AUDIT_APPROVAL_DECISIONS_TABLE, AUDIT_RUN_STARTS_TABLE],
  eventTypes: new Set([
    'RunRequested',
    'RunStartRecorded',
    'StepStarted',
    'ToolExecuted',
    'AuditRecorded',
    'AuditGapDetected',
    'RunRequeued',
    'RunCompleted',
    'RunFailed',
    'RunCancelled',
    'ApprovalDecisionRecorded',
  ]),
  apply(event, rows) {
    const lookups: AuditReviewLookups = { writeOf: (stepId) => rows.get(AUDIT_WRITES_TABLE, stepId), startOf: (runId) => rows.get(AUDIT_RUN_STARTS_TABLE, runId) };
    for (const change of auditReviewChanges(event, lookups)) {
      switch (change.table) {
        case 'audit_writes':
          rows.put(AUDIT_WRITES_TABLE, change.row);
          break;
        case 'audit_runs':
          rows.put(AUDIT_RUNS_TABLE, change.row);
          break;
        case 'audit_interruptions':
          rows.put(AUDIT_INTERRUPTIONS_TABLE, change.row);
          break;
        case 'audit_approval_decisions':
          rows.put(AUDIT_APPROVAL_DECISIONS_TABLE, change.row);
          break;
        case 'audit_run_starts':
          rows.put(AUDIT_RUN_STARTS_TABLE, change.row);
          break;
      }
    }
  },
};

/** A row the audit review writes for an event. */
export type AuditReviewChange =
  | { readonly table: 'audit_writes'; readonly row: AuditWriteRow }
  | { readonly table: 'audit_runs'; readonly row: AuditRunRow }
  | { readonly table: 'audit_interruptions'; readonly row: AuditInterruptionRow }
  | { readonly table: 'audit_approval_decisions'; readonly row: AuditApprovalDecisionRow }
  | { readonly table: 'audit_run_starts'; readonly row: AuditRunStartRow };

/** The rows {@link auditReviewChanges} reads: the current write row of a step, the start row of a run. */
export interface AuditReviewLookups {
  readonly writeOf: (stepId: string) => AuditWriteRow | undefined;
  readonly startOf: (runId: string) => AuditRunStartRow | undefined;
}

/**
 * The pure mapping of the audit review: the rows to upsert for `event`,
 * given a way to read the rows it builds on.
 */
export function auditReviewChanges(event: ProjectedEvent, { writeOf, startOf }: AuditReviewLookups): AuditReviewChange[] {
  switch (event.type) {
    case 'RunRequested':
    case 'RunStartRecorded': {
      const d = event.data;
      const stated = event.type === 'RunStartRecorded';
      // The statement is the audited answer; the request only fills in a run whose statement is not seen yet.
      if (!stated && startOf(d.runId)?.stated === true) return [];
      const continuationOf = stated ? event.data.continuationOf : (event.data.continuation?.of ?? null);
      return [{ table: 'audit_run_starts', row: { runId: d.runId, startedBy: principalLabel(d.requestedBy), requestedAt: d.requestedAt, continuationOf, stated } }];
    }
    case 'StepStarted': {
      const d = event.data;
      if (!isWriteEffect(d.effect)) return [];
      const row = writeOf(d.stepId) ?? emptyWrite(d.stepId, d.runId);
      return [
        write({
          ...row,
          toolName: d.toolName,
          effect: d.effect,
          idempotencyKey: d.idempotencyKey,
          starts: row.starts + 1,
          firstStartedAt: row.firstStartedAt ?? d.startedAt,
        }),
      ];
    }
    case 'ToolExecuted': {
      const d = event.data;
      if (!isWriteEffect(d.effect)) return [];
      const row = writeOf(d.stepId) ?? emptyWrite(d.stepId, d.runId);
      return [write({ ...row, toolName: d.toolName, effect: d.effect, idempotencyKey: d.idempotencyKey, executedAt: d.executedAt, outcome: d.outcome, executedAttempt: d.attempt })];
    }
    case 'AuditRecorded': {
      const d = event.data;
      if (!isWriteEffect(d.effect)) return [];
      const row = writeOf(d.stepId) ?? emptyWrite(d.stepId, d.runId);
      const runSideKnown = knownFromRunSide(row);
      return [
        write({
          ...row,
          toolName: runSideKnown ? row.toolName : d.toolName,
          effect: runSideKnown ? row.effect : d.effect,
          idempotencyKey: runSideKnown ? row.idempotencyKey : d.idempotencyKey,
          audited: true,
          auditAttempt: d.attempt,
          auditSequence: d.sequence,
          auditRecordedAt: d.recordedAt,
        }),
      ];
    }
    case 'AuditGapDetected': {
      const d = event.data;
      const row = writeOf(d.stepId) ?? emptyWrite(d.stepId, d.runId);
      const runSideKnown = knownFromRunSide(row);
      return [
        write({
          ...row,
          toolName: runSideKnown ? row.toolName : d.toolName,
          effect: runSideKnown ? row.effect : d.effect,
          gapDetectedAt: d.detectedAt,
          gapDetectedBy: d.detectedBy,
          gapRunAlreadySettled: d.runAlreadySettled,
        }),
      ];
    }
    case 'RunRequeued': {
      const d = event.data;
      return interruption(event, d.inFlightWrite, { eventType: 'RunRequeued', cause: d.cause, reason: null, at: d.requeuedAt });
    }
    case 'RunCompleted': {
      const d = event.data;
      return [settled({ runId: d.runId, status: 'COMPLETED', reason: 'COMPLETED', failureClass: null, failureMessage: null, deadLettered: false, settledAt: d.completedAt, inFlightStepId: null })];
    }
    case 'RunFailed': {
      const d = event.data;
      return [
        settled({
          runId: d.runId,
          status: 'FAILED',
          reason: d.reason,
          failureClass: d.failure.failureClass,
          failureMessage: d.failure.message,
          deadLettered: d.deadLettered,
          settledAt: d.failedAt,
          inFlightStepId: d.inFlightWrite?.stepId ?? null,
        }),
        ...interruption(event, d.inFlightWrite, { eventType: 'RunFailed', cause: null, reason: d.reason, at: d.failedAt }),
      ];
    }
    case 'RunCancelled': {
      const d = event.data;
      return [
        settled({
          runId: d.runId,
          status: 'CANCELLED',
          reason: 'CANCELLED',
          failureClass: null,
          failureMessage: null,
          deadLettered: false,
          settledAt: d.cancelledAt,
          inFlightStepId: d.inFlightWrite?.stepId ?? null,
        }),
        ...interruption(event, d.inFlightWrite, { eventType: 'RunCancelled', cause: null, reason: 'CANCELLED', at: d.cancelledAt }),
      ];
    }
    case 'ApprovalDecisionRecorded': {
      const d = event.data;
      return [
        {
          table: 'audit_approval_decisions',
          row: { decisionId: `${d.runId}@${d.sequence}`, runId: d.runId, round: d.round, decision: d.decision, calls: d.calls.length, decidedBy: principalLabel(d.decidedBy), recordedAt: d.recordedAt },
        },
      ];
    }
    default:
      return [];
  }
}

function isWriteEffect(effect: ToolEffect | null): effect is ToolEffect {
  return effect !== null && isWrite(effect);
}

function write(row: AuditWriteRow): AuditReviewChange {
  return { table: 'audit_writes', row };
}

function settled(row: AuditRunRow): AuditReviewChange {
  return { table: 'audit_runs', row };
}

function interruption(
  event: ProjectedEvent,
  inFlight: InFlightWrite | null,
  what: Pick<AuditInterruptionRow, 'eventType' | 'cause' | 'reason' | 'at'>,
): AuditReviewChange[] {
  if (inFlight === null) return [];
  const runId = event.data.runId;
  return [
    {
      table: 'audit_interruptions',
      row: {
        interruptionId: `${runId}@${event.revision}`,
        runId,
        stepId: inFlight.stepId,
        toolName: inFlight.toolName,
        effect: inFlight.effect,
        idempotencyKey: inFlight.idempotencyKey,
        attempt: inFlight.attempt,
        startedAt: inFlight.startedAt,
        ...what,
      },
    },
  ];
}

function emptyWrite(stepId: string, runId: string): AuditWriteRow {
  return {
    stepId,
    runId,
    toolName: null,
    effect: null,
    idempotencyKey: null,
    starts: 0,
    firstStartedAt: null,
    executedAt: null,
    outcome: null,
    executedAttempt: null,
    audited: false,
    auditAttempt: null,
    auditSequence: null,
    auditRecordedAt: null,
    gapDetectedAt: null,
    gapDetectedBy: null,
    gapRunAlreadySettled: null,
  };
}

/**
 * Whether the run's own events already described this write: then their
 * values win, and an audit-side event only fills what is still empty (the two
 * stores may be read in any order).
 */
function knownFromRunSide(row: AuditWriteRow): boolean {
  return row.starts > 0 || row.executedAt !== null;
}
