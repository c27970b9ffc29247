import type { StepRow } from '@agent-ledger/client';
import type { TimelineEntry } from './timeline-entry';

const STEP_ENDS = new Set(['ToolExecuted', 'ModelResponded']);

/**
 * Places each step's audit state (from the steps read model: the audit events
 * live in the run's audit stream, not in its run stream) right after the event
 * that ended the step: `AuditRecorded` with its sequence number, or, for a
 * write of a settled run, `AuditNotStored`. An audit still on its way for a
 * live run shows nothing yet.
 */
export function withAuditEntries(entries: readonly TimelineEntry[], steps: readonly StepRow[], runSettled: boolean): TimelineEntry[] {
  const byStep = new Map(steps.map((s) => [s.stepId, s]));
  const out: TimelineEntry[] = [];
  for (const entry of entries) {
    out.push(entry);
    if (!STEP_ENDS.has(entry.type) || entry.stepId === null) continue;
    const step = byStep.get(entry.stepId);
    if (step === undefined) continue;
    if (step.auditState === 'recorded') {
      out.push({ ...entry, type: 'AuditRecorded', key: `audit-${entry.stepId}`, title: `Audit recorded (#${step.auditSequence ?? '?'})`, detail: `the step's record in audit-${entry.stepId.split('/')[0]}`, tone: 'good' });
    } else if (runSettled && step.effect !== null && step.effect !== 'READ_ONLY') {
      out.push({ ...entry, type: 'AuditNotStored', key: `audit-${entry.stepId}`, title: 'No audit stored for this write', detail: step.auditState === 'missing' ? 'the audit-gap saga recorded the gap' : 'its audit was refused or never written', tone: 'bad' });
    }
  }
  return out;
}
