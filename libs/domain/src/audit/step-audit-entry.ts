import type { StepRecord } from '../run/run-state';
import type { RecordAudit } from './audit-commands';

/**
 * What the audit of a completed step states: its identity, tool, effect and
 * idempotency key as the run recorded them, and its outcome (`responded` for a
 * model step; a tool step's own outcome).
 */
export function stepAuditEntry(runId: string, step: StepRecord, attempt: number): RecordAudit['data'] {
  return {
    runId,
    stepId: step.stepId,
    kind: step.kind,
    toolName: step.toolName,
    effect: step.effect,
    idempotencyKey: step.idempotencyKey,
    outcome: step.kind === 'llm' ? 'responded' : (step.outcome ?? 'failed'),
    attempt,
  };
}
