import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectedEvent } from '../core/projected-event';
import { ProjectionName } from '../core/projection-name';
import type { RowStore } from '../core/row-store';
import type { StepApproval, StepApprovalFactsRow, StepAuditState, StepRow } from './step-row';
import { STEP_APPROVALS_TABLE, STEPS_TABLE } from './step-row';

/**
 * The steps read model: one row per step (`steps`), fed by run and audit
 * streams. The approval events of a tool call are kept by step
 * (`step_approvals`) until the call starts or is denied.
 */
export const stepsProjection: ProjectionDefinition = {
  name: ProjectionName.STEPS,
  tables: [STEPS_TABLE, STEP_APPROVALS_TABLE],
  apply(event, rows) {
    switch (event.type) {
      case 'ApprovalRequested':
        for (const call of event.data.calls) {
          const { stepId, callIndex, toolName, effect } = call;
          rows.put(STEP_APPROVALS_TABLE, { stepId, runId: event.data.runId, round: event.data.round, callIndex, toolName, effect, approval: 'pending' });
        }
        return;
      case 'ToolCallPreApproved': {
        const { stepId, runId, round, callIndex, toolName, effect } = event.data;
        rows.put(STEP_APPROVALS_TABLE, { stepId, runId, round, callIndex, toolName, effect, approval: 'preApproved' });
        approve(rows, stepId, 'preApproved');
        return;
      }
      case 'ApprovalGranted':
        for (const stepId of event.data.stepIds) {
          const known = rows.get(STEP_APPROVALS_TABLE, stepId);
          if (known !== undefined) rows.put(STEP_APPROVALS_TABLE, { ...known, approval: 'granted' });
          approve(rows, stepId, 'granted');
        }
        return;
      case 'ApprovalDenied':
        for (const stepId of event.data.stepIds) {
          const known = rows.get(STEP_APPROVALS_TABLE, stepId);
          if (known === undefined) continue;
          rows.put(STEP_APPROVALS_TABLE, { ...known, approval: 'denied' });
          rows.put(STEPS_TABLE, deniedStep(rows.get(STEPS_TABLE, stepId), known, event.data.decidedAt));
        }
        return;
      case 'ApprovalDecisionRecorded': {
        const d = event.data;
        if (d.decision !== 'denied') return; // an approved call gets its own audit record once it executes
        for (const call of d.calls) {
          rows.put(STEPS_TABLE, deniedStepAudit(rows.get(STEPS_TABLE, call.stepId), { ...call, runId: d.runId, round: d.round, sequence: d.sequence, recordedAt: d.recordedAt }));
        }
        return;
      }
      default: {
        const stepId = stepIdOf(event);
        if (stepId === null) return;
        let next = evolveStep(rows.get(STEPS_TABLE, stepId), event);
        if (next === undefined) return;
        if (event.type === 'StepStarted') {
          const known = rows.get(STEP_APPROVALS_TABLE, stepId);
          if (known !== undefined && known.approval !== 'pending') next = { ...next, approval: known.approval };
        }
        rows.put(STEPS_TABLE, next);
      }
    }
  },
};

/** Marks an existing step row approved (a row created first by its audit event, when the audit store is projected first). */
function approve(rows: RowStore, stepId: string, approval: StepApproval): void {
  const row = rows.get(STEPS_TABLE, stepId);
  if (row !== undefined && row.approval !== approval) rows.put(STEPS_TABLE, { ...row, approval });
}

/**
 * A call a person denied (run side, `ApprovalDenied`): completed without ever
 * starting. The run side's values win over its audit record's.
 */
export function deniedStep(row: StepRow | undefined, call: StepApprovalFactsRow, decidedAt: number): StepRow {
  const current = row ?? emptyStep(call.stepId, call.runId);
  return withAuditState({
    ...current,
    round: call.round,
    callIndex: call.callIndex,
    kind: 'tool',
    toolName: call.toolName,
    effect: call.effect,
    status: 'completed',
    outcome: 'denied',
    completedAt: decidedAt,
    approval: 'denied',
  });
}

/**
 * A denied call's audit record (audit side, `ApprovalDecisionRecorded` with
 * `decision: 'denied'`): the person's decision is the call's audit record,
 * unless the step has one of its own (`AuditRecorded`, which the runtime
 * writes when a `tellModel` run resumes past the denied call; it comes later
 * in the same audit stream and wins). It only fills run-side fields still null.
 */
export function deniedStepAudit(
  row: StepRow | undefined,
  call: { readonly stepId: string; readonly runId: string; readonly round: number; readonly toolName: string; readonly effect: StepRow['effect']; readonly sequence: number; readonly recordedAt: number },
): StepRow {
  const current = row ?? emptyStep(call.stepId, call.runId);
  const runSideKnown = current.kind !== null;
  return withAuditState({
    ...current,
    round: current.round ?? call.round,
    callIndex: runSideKnown ? current.callIndex : parseStepId(call.stepId).callIndex,
    kind: current.kind ?? 'tool',
    toolName: runSideKnown ? current.toolName : call.toolName,
    effect: runSideKnown ? current.effect : call.effect,
    ...(current.auditSequence === null ? { auditSequence: call.sequence, auditOutcome: 'denied' as const, auditRecordedAt: call.recordedAt } : {}),
  });
}

/** The step an event is about, or null for run-level events. */
export function stepIdOf(event: ProjectedEvent): string | null {
  switch (event.type) {
    case 'StepStarted':
    case 'ModelResponded':
    case 'ToolExecuted':
    case 'AuditGapDetected':
    case 'AuditRecorded':
    case 'ToolEffectConflictRecorded':
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
    case 'ToolEffectConflictRecorded': {
      // Recorded right before the step's StepStarted (at each start), which fills the run-side fields.
      const { server, declared, hinted, trusted } = event.data;
      return { ...current, conflictServer: server, conflictDeclared: declared, conflictHinted: hinted, conflictTrusted: trusted };
    }
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
    approval: null,
    conflictServer: null,
    conflictDeclared: null,
    conflictHinted: null,
    conflictTrusted: null,
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
