import type { Decider } from '../decider';
import { InvalidFieldError } from '../errors/invalid-field.error';
import { assertPrincipal } from '../principal/principal';
import { isToolEffect } from '../tool-effect/tool-effect';
import { assertRunId } from '../run/step-id';
import type { AuditCommand, RecordApprovalDecision, RecordWriteResolution } from './audit-commands';
import { auditRecordHash } from './audit-chain';
import type { AuditEvent, AuditRecorded } from './audit-events';

/** A run's audit trail as its events tell it. */
export interface AuditState {
  /** The sequence number of the last audit record; 0 for none. */
  readonly sequence: number;
  /** The hash of the last audit record; null for none. */
  readonly lastHash: string | null;
  readonly recordedSteps: ReadonlySet<string>;
}

/** The audit stream's decider. */
export type AuditDecider = Decider<AuditCommand, AuditState, AuditEvent, readonly AuditEvent[]>;

/** The state of an empty audit stream. */
export function initialAuditState(): AuditState {
  return { sequence: 0, lastHash: null, recordedSteps: new Set() };
}

/** Folds an audit event into the state; never throws. */
export function evolveAudit(state: AuditState, event: AuditEvent): AuditState {
  if (event.type === 'AuditRecorded') {
    return { sequence: event.data.sequence, lastHash: event.data.hash, recordedSteps: new Set([...state.recordedSteps, event.data.stepId]) };
  }
  if (event.type === 'WriteResolutionRecorded' || event.type === 'ApprovalDecisionRecorded') {
    return { ...state, sequence: event.data.sequence, lastHash: event.data.hash };
  }
  return state;
}

/**
 * Decides `RecordAudit`: one audit record per step, numbered in order and
 * hash-chained to the record before it.
 *
 * @throws {@link InvalidFieldError} naming the field of a malformed command.
 */
export function decideAudit(command: AuditCommand, state: AuditState): readonly AuditEvent[] {
  if (command.type === 'RecordWriteResolution') return decideWriteResolution(command, state);
  if (command.type === 'RecordApprovalDecision') return decideApprovalDecision(command, state);
  const { data, metadata } = command;
  assertRunId(data.runId, 'data.runId');
  if (typeof data.stepId !== 'string' || !data.stepId.startsWith(`${data.runId}/`)) {
    throw new InvalidFieldError('data.stepId', 'must be a step id of the run');
  }
  if (data.kind === 'tool') {
    if (typeof data.toolName !== 'string' || data.toolName.length === 0) throw new InvalidFieldError('data.toolName', 'must name the tool of a tool step');
    if (!isToolEffect(data.effect)) throw new InvalidFieldError('data.effect', 'must be the effect of a tool step');
  } else if (data.kind !== 'llm') {
    throw new InvalidFieldError('data.kind', 'must be "llm" or "tool"');
  }
  if (state.recordedSteps.has(data.stepId)) return [];
  const content: Omit<AuditRecorded['data'], 'hash'> = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return [{ type: 'AuditRecorded', data: { ...content, hash: auditRecordHash(content) } }];
}

function decideWriteResolution({ data, metadata }: RecordWriteResolution, state: AuditState): readonly AuditEvent[] {
  assertRunId(data.runId, 'data.runId');
  if (typeof data.stepId !== 'string' || !data.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError('data.stepId', 'must be a step id of the run');
  if (data.outcome !== 'executed' && data.outcome !== 'notExecuted') throw new InvalidFieldError('data.outcome', 'must be "executed" or "notExecuted"');
  if (typeof data.note !== 'string' || data.note.trim().length === 0) throw new InvalidFieldError('data.note', 'must say how the outcome is known');
  assertPrincipal(data.resolvedBy, 'data.resolvedBy');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return [{ type: 'WriteResolutionRecorded', data: { ...content, hash: auditRecordHash(content) } }];
}

function decideApprovalDecision({ data, metadata }: RecordApprovalDecision, state: AuditState): readonly AuditEvent[] {
  assertRunId(data.runId, 'data.runId');
  if (data.decision !== 'approved' && data.decision !== 'denied') throw new InvalidFieldError('data.decision', 'must be "approved" or "denied"');
  if (!Array.isArray(data.calls) || data.calls.length === 0) throw new InvalidFieldError('data.calls', 'must list the calls decided on');
  data.calls.forEach((call, i) => {
    if (typeof call.stepId !== 'string' || !call.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError(`data.calls[${i}].stepId`, 'must be a step id of the run');
    if (!isToolEffect(call.effect)) throw new InvalidFieldError(`data.calls[${i}].effect`, 'must be a tool effect');
  });
  assertPrincipal(data.decidedBy, 'data.decidedBy');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return [{ type: 'ApprovalDecisionRecorded', data: { ...content, hash: auditRecordHash(content) } }];
}

/** The audit stream's decider. */
export const auditDecider: AuditDecider = {
  decide: decideAudit,
  evolve: evolveAudit,
  initialState: initialAuditState,
};
