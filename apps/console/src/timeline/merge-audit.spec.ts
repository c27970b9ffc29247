import type { StepRow } from '@agent-ledger/client';
import type { TimelineEntry } from './timeline-entry';
import { withAuditEntries } from './merge-audit';

const entry = (type: string, stepId: string | null, key: string): TimelineEntry => ({ type, key, stepId, title: type, detail: '', effect: null, tone: 'neutral', at: '2026-11-30T08:00:00.000Z' });
const step = (stepId: string, auditState: StepRow['auditState'], effect: StepRow['effect']): StepRow => ({
  stepId,
  runId: 'r',
  round: 0,
  callIndex: effect === null ? null : 0,
  kind: effect === null ? 'llm' : 'tool',
  toolName: effect === null ? null : 'files.append',
  effect,
  idempotencyKey: effect === null ? null : `${stepId}:k`,
  status: 'completed',
  outcome: 'succeeded',
  starts: 1,
  attempt: 1,
  firstStartedAt: 1,
  lastStartedAt: 1,
  completedAt: 2,
  errorClass: null,
  errorMessage: null,
  auditState,
  auditSequence: auditState === 'recorded' ? 3 : null,
  auditOutcome: auditState === 'recorded' ? 'succeeded' : null,
  auditRecordedAt: null,
  gapDetectedAt: null,
  approval: null,
  conflictServer: null,
  conflictDeclared: null,
  conflictHinted: null,
  conflictTrusted: null,
});

describe('withAuditEntries', () => {
  const entries = [entry('StepStarted', 'r/r0/llm', '1'), entry('ModelResponded', 'r/r0/llm', '2'), entry('StepStarted', 'r/r0/t0', '3'), entry('ToolExecuted', 'r/r0/t0', '4'), entry('RunFailed', null, '5')];

  it('puts the stored audit after the step that ended, and flags a settled write without one', () => {
    const merged = withAuditEntries(entries, [step('r/r0/llm', 'recorded', null), step('r/r0/t0', 'pending', 'NON_IDEMPOTENT_WRITE')], true);
    expect(merged.map((e) => e.type)).toEqual(['StepStarted', 'ModelResponded', 'AuditRecorded', 'StepStarted', 'ToolExecuted', 'AuditNotStored', 'RunFailed']);
    expect(merged[2]!.title).toBe('Audit recorded (#3)');
  });

  it('says nothing of an audit on its way while the run is live, nor of a read', () => {
    expect(withAuditEntries(entries, [step('r/r0/t0', 'pending', 'NON_IDEMPOTENT_WRITE')], false).map((e) => e.type)).not.toContain('AuditNotStored');
    expect(withAuditEntries(entries, [step('r/r0/t0', 'pending', 'READ_ONLY')], true).map((e) => e.type)).not.toContain('AuditNotStored');
  });
});
