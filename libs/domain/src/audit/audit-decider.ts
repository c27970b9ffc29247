import type { Decider } from '../decider';
import { InvalidFieldError } from '../errors/invalid-field.error';
import { assertRecordedPrincipal } from '../principal/principal';
import { isToolEffect } from '../tool-effect/tool-effect';
import { assertRunId } from '../run/step-id';
import { AuditStatementConflictError } from '../errors/audit-statement-conflict.error';
import type { JsonObject } from '../json';
import type { AuditCommand, RecordApprovalDecision, RecordInputAnswer, RecordWriteResolution } from './audit-commands';
import { auditRecordHash } from './audit-chain';
import type { AuditEvent, AuditRecorded } from './audit-events';
import { canonicalJson } from './canonical-json';
import type { DecisionStatement } from './decision-statement';
import { auditStatementKey, statementKey } from './decision-statement';

/** A run's audit trail as its events tell it. */
export interface AuditState {
  /** The sequence number of the last audit record; 0 for none. */
  readonly sequence: number;
  /** The hash of the last audit record; null for none. */
  readonly lastHash: string | null;
  readonly recordedSteps: ReadonlySet<string>;
  /**
   * The decisions stated so far, by decision key (`statementKey`): the
   * fingerprint of each statement under it. A chain written before statements
   * were made exactly once may hold several under one key.
   */
  readonly statements: ReadonlyMap<string, readonly string[]>;
}

/** The audit stream's decider. */
export type AuditDecider = Decider<AuditCommand, AuditState, AuditEvent, readonly AuditEvent[]>;

/** The state of an empty audit stream. */
export function initialAuditState(): AuditState {
  return { sequence: 0, lastHash: null, recordedSteps: new Set(), statements: new Map() };
}

/** What identifies a statement's content: everything it states, not where or when it sits in the chain. */
function fingerprint(data: object): string {
  const { sequence: _sequence, recordedAt: _recordedAt, previousHash: _previousHash, hash: _hash, ...content } = data as Record<string, unknown>;
  return canonicalJson(content as JsonObject);
}

/** Folds an audit event into the state; never throws. */
export function evolveAudit(state: AuditState, event: AuditEvent): AuditState {
  if (event.type === 'AuditRecorded') {
    return { ...state, sequence: event.data.sequence, lastHash: event.data.hash, recordedSteps: new Set([...state.recordedSteps, event.data.stepId]) };
  }
  const key = auditStatementKey(event);
  if (key === null) return state;
  const statements = new Map(state.statements);
  statements.set(key, [...(state.statements.get(key) ?? []), fingerprint(event.data)]);
  return { ...state, sequence: event.data.sequence, lastHash: event.data.hash, statements };
}

/**
 * Decides an audit command: one audit record per step, and one statement per
 * decision (approval round, answered step, requeue), each numbered in order
 * and hash-chained to the record before it. The same statement sent again
 * records nothing (it is already there); a different statement for a decision
 * already stated is refused.
 *
 * @throws {@link InvalidFieldError} naming the field of a malformed command.
 * @throws {@link AuditStatementConflictError} for a second, different statement of one decision.
 */
export function decideAudit(command: AuditCommand, state: AuditState): readonly AuditEvent[] {
  if (command.type === 'RecordWriteResolution') return stateOnce({ kind: 'resolution', data: command.data }, state, () => decideWriteResolution(command, state));
  if (command.type === 'RecordApprovalDecision') return stateOnce({ kind: 'approval', data: command.data }, state, () => decideApprovalDecision(command, state));
  if (command.type === 'RecordInputAnswer') return stateOnce({ kind: 'input', data: command.data }, state, () => decideInputAnswer(command, state));
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

/**
 * Records a statement once: nothing when the chain already holds it, refused
 * when it holds another for the same decision, unless every other one is a
 * version 1 statement (its actor an `unverified` name): a version before
 * decisions took effect on the run first stated a decision before deciding
 * it, so such a statement may be of a decision that never took effect, and it
 * must not keep the one that did from being stated.
 */
function stateOnce(statement: DecisionStatement, state: AuditState, decide: () => readonly AuditEvent[]): readonly AuditEvent[] {
  const events = decide();
  const stated = state.statements.get(statementKey(statement));
  if (stated === undefined) return events;
  if (stated.includes(fingerprint(statement.data))) return [];
  if (stated.every(isVersion1Statement)) return events;
  throw new AuditStatementConflictError(statement.data.runId, statementKey(statement));
}

/** Whether a statement's fingerprint names its actor as an `unverified` name (upcast from version 1). */
function isVersion1Statement(statementFingerprint: string): boolean {
  const content = JSON.parse(statementFingerprint) as Record<string, unknown>;
  const actor = content['decidedBy'] ?? content['resolvedBy'] ?? content['answeredBy'];
  return typeof actor === 'object' && actor !== null && (actor as { kind?: unknown }).kind === 'unverified';
}

function decideInputAnswer({ data, metadata }: RecordInputAnswer, state: AuditState): readonly AuditEvent[] {
  assertRunId(data.runId, 'data.runId');
  if (typeof data.stepId !== 'string' || !data.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError('data.stepId', 'must be a step id of the run');
  if (typeof data.inputHash !== 'string' || !/^[0-9a-f]{64}$/.test(data.inputHash)) throw new InvalidFieldError('data.inputHash', 'must be a SHA-256 in hex');
  assertRecordedPrincipal(data.answeredBy, 'data.answeredBy');
  if (typeof data.answeredAt !== 'number' || !Number.isFinite(data.answeredAt)) throw new InvalidFieldError('data.answeredAt', 'must be a time in milliseconds');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return [{ type: 'InputAnswerRecorded', data: { ...content, hash: auditRecordHash(content) } }];
}

function decideWriteResolution({ data, metadata }: RecordWriteResolution, state: AuditState): readonly AuditEvent[] {
  assertRunId(data.runId, 'data.runId');
  if (typeof data.stepId !== 'string' || !data.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError('data.stepId', 'must be a step id of the run');
  if (data.outcome !== 'executed' && data.outcome !== 'notExecuted') throw new InvalidFieldError('data.outcome', 'must be "executed" or "notExecuted"');
  if (typeof data.note !== 'string' || data.note.trim().length === 0) throw new InvalidFieldError('data.note', 'must say how the outcome is known');
  assertRecordedPrincipal(data.resolvedBy, 'data.resolvedBy');
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
  assertRecordedPrincipal(data.decidedBy, 'data.decidedBy');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return [{ type: 'ApprovalDecisionRecorded', data: { ...content, hash: auditRecordHash(content) } }];
}

/** The audit stream's decider. */
export const auditDecider: AuditDecider = {
  decide: decideAudit,
  evolve: evolveAudit,
  initialState: initialAuditState,
};
