import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectedEvent } from '../core/projected-event';
import { ProjectionName } from '../core/projection-name';
import type { StepAuditState, StepRow } from './step-row';
import { STEPS_TABLE } from './step-row';

/** The steps read model: one row per step (`steps`), fed by run and audit streams. */
export const stepsProjection: ProjectionDefinition = {
  name: ProjectionName.STEPS,
  tables: [STEPS_TABLE],
  apply(event, rows) {
    const stepId = stepIdOf(event);
    if (stepId === null) return;
    const next = evolveStep(rows.get(STEPS_TABLE, stepId), event);
    if (next !== undefined) rows.put(STEPS_TABLE, next);
  },
};

/** The step an event is about, or null for run-level events. */
export function stepIdOf(event: ProjectedEvent): string | null {
  switch (event.type) {
    case 'StepStarted':
    case 'ModelResponded':
    case 'ToolExecuted':
    case 'AuditGapDetected':
    case 'AuditRecorded':
      return event.data.stepId;
    default:
      return null;
  }
}

/**
 * The pure mapping of the steps model: the step's row after `event`, or
 * undefined when the event says nothing about a step. Run-side fields are
 * written by run events (they win); the audit event only fills fields still
 * null, so the row ends the same whichever store's event comes first.
 */
export function evolveStep(row: StepRow | undefined, event: ProjectedEvent): StepRow | undefined {
  const stepId = stepIdOf(event);
  if (stepId === null) return undefined;
  const current = row ?? emptyStep(stepId, event.data.runId);
  switch (event.type) {
    case 'StepStarted': {
      const d = event.data;
      return withAuditState({
        ...current,
        round: d.round,
        callIndex: d.callIndex,
        kind: d.kind,
        toolName: d.toolName,
        effect: d.effect,
        idempotencyKey: d.idempotencyKey,
        status: current.status === 'completed' ? 'completed' : 'started',
        starts: current.starts + 1,
        attempt: d.attempt,
        firstStartedAt: current.firstStartedAt ?? d.startedAt,
        lastStartedAt: d.startedAt,
      });
    }
    case 'ModelResponded':
      return withAuditState({ ...current, round: event.data.round, status: 'completed', outcome: 'responded', completedAt: event.data.respondedAt });
    case 'ToolExecuted': {
      const d = event.data;
      return withAuditState({
        ...current,
        round: d.round,
        callIndex: d.callIndex,
        toolName: d.toolName,
        effect: d.effect,
        idempotencyKey: d.idempotencyKey,
        status: 'completed',
        outcome: d.outcome,
        completedAt: d.executedAt,
        errorClass: d.error?.failureClass ?? null,
        errorMessage: d.error?.message ?? null,
      });
    }
    case 'AuditGapDetected':
      return withAuditState({ ...current, gapDetectedAt: current.gapDetectedAt ?? event.data.detectedAt });
    case 'AuditRecorded': {
      const d = event.data;
      const coordinates = parseStepId(stepId);
      return withAuditState({
        ...current,
        round: current.round ?? coordinates.round,
        callIndex: current.kind === null ? coordinates.callIndex : current.callIndex,
        kind: current.kind ?? d.kind,
        toolName: current.kind === null ? d.toolName : current.toolName,
        effect: current.kind === null ? d.effect : current.effect,
        idempotencyKey: current.kind === null ? d.idempotencyKey : current.idempotencyKey,
        auditSequence: d.sequence,
        auditOutcome: d.outcome,
        auditRecordedAt: d.recordedAt,
      });
    }
    default:
      return undefined;
  }
}

function emptyStep(stepId: string, runId: string): StepRow {
  return {
    stepId,
    runId,
    round: null,
    callIndex: null,
    kind: null,
    toolName: null,
    effect: null,
    idempotencyKey: null,
    status: null,
    outcome: null,
    starts: 0,
    attempt: null,
    firstStartedAt: null,
    lastStartedAt: null,
    completedAt: null,
    errorClass: null,
    errorMessage: null,
    auditState: 'pending',
    auditSequence: null,
    auditOutcome: null,
    auditRecordedAt: null,
    gapDetectedAt: null,
  };
}

function withAuditState(row: StepRow): StepRow {
  const auditState: StepAuditState = row.auditRecordedAt !== null ? 'recorded' : row.gapDetectedAt !== null ? 'missing' : 'pending';
  return row.auditState === auditState ? row : { ...row, auditState };
}

/** The round and call index encoded in a step id (`<runId>/r<round>/llm` or `<runId>/r<round>/t<i>`). */
export function parseStepId(stepId: string): { round: number | null; callIndex: number | null } {
  const match = /\/r(\d+)\/(?:llm|t(\d+))$/.exec(stepId);
  if (match === null) return { round: null, callIndex: null };
  return { round: Number(match[1]), callIndex: match[2] === undefined ? null : Number(match[2]) };
}
