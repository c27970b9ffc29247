import type { StepRecord } from '../run/run-state';
import { ToolEffect } from '../tool-effect/tool-effect';
import { stepAuditEntry } from './step-audit-entry';

const toolStep = {
  stepId: 'r1/r0/t0',
  kind: 'tool',
  round: 0,
  toolName: 'files.write',
  effect: ToolEffect.IDEMPOTENT_WRITE,
  idempotencyKey: 'r1/r0/t0',
} as unknown as StepRecord;

describe('stepAuditEntry', () => {
  it("states a tool step's identity, tool, effect, key, outcome and attempt", () => {
    expect(stepAuditEntry('r1', { ...toolStep, outcome: 'succeeded' } as StepRecord, 2)).toEqual({
      runId: 'r1',
      stepId: 'r1/r0/t0',
      kind: 'tool',
      toolName: 'files.write',
      effect: ToolEffect.IDEMPOTENT_WRITE,
      idempotencyKey: 'r1/r0/t0',
      outcome: 'succeeded',
      attempt: 2,
    });
  });

  it('states a model step as responded, and a tool step without an outcome as failed', () => {
    expect(stepAuditEntry('r1', { ...toolStep, kind: 'llm', toolName: null, effect: null, idempotencyKey: null } as StepRecord, 1).outcome).toBe('responded');
    expect(stepAuditEntry('r1', toolStep, 1).outcome).toBe('failed');
  });
});
