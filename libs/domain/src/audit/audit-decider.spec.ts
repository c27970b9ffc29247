import { foldEvents } from '../decider';
import { InvalidFieldError } from '../errors/invalid-field.error';
import type { RecordAudit } from './audit-commands';
import { auditRecordHash } from './audit-chain';
import { auditDecider } from './audit-decider';
import type { AuditEvent } from './audit-events';

const T0 = Date.UTC(2026, 0, 1);
const record = (stepId: string, overrides: Partial<RecordAudit['data']> = {}): RecordAudit => ({
  type: 'RecordAudit',
  data: {
    runId: 'run-1',
    stepId,
    kind: 'tool',
    toolName: 'files.append',
    effect: 'NON_IDEMPOTENT_WRITE',
    idempotencyKey: `agent-ledger:${stepId}`,
    outcome: 'succeeded',
    attempt: 1,
    ...overrides,
  },
  metadata: { now: T0 },
});
const decide = (given: readonly AuditEvent[], command: RecordAudit) => auditDecider.decide(command, foldEvents(auditDecider, given));

describe('audit decider', () => {
  it('records a step\'s audit with the next sequence number', () => {
    const first = decide([], record('run-1/r0/t0'));
    const content = { ...record('run-1/r0/t0').data, sequence: 1, recordedAt: T0, previousHash: null };
    expect(first).toEqual([{ type: 'AuditRecorded', data: { ...content, hash: auditRecordHash(content) } }]);
    expect(decide(first, record('run-1/r0/t1'))).toMatchObject([{ data: { stepId: 'run-1/r0/t1', sequence: 2, previousHash: first[0]?.data.hash } }]);
  });

  it('records each step once, however often it is sent', () => {
    const first = decide([], record('run-1/r0/t0'));
    expect(decide(first, record('run-1/r0/t0'))).toEqual([]);
  });

  it('records model steps without a tool', () => {
    expect(decide([], record('run-1/r0/llm', { kind: 'llm', toolName: null, effect: null, idempotencyKey: null, outcome: 'responded' }))).toHaveLength(1);
  });

  it.each([
    ['data.stepId', { stepId: 'run-2/r0/t0' }],
    ['data.toolName', { toolName: null }],
    ['data.effect', { effect: 'WRITE' as never }],
    ['data.kind', { kind: 'other' as never }],
    ['data.runId', { runId: '' }],
  ])('refuses a record whose %s is malformed', (field, overrides) => {
    const stepId = (overrides as { stepId?: string }).stepId ?? 'run-1/r0/t0';
    expect(() => decide([], record(stepId, overrides))).toThrow(InvalidFieldError);
    expect(() => decide([], record(stepId, overrides))).toThrow(expect.objectContaining({ field }) as Error);
  });
});
