import type { Decider } from '../decider';
import type { Decision } from '../decision';
import { accepted, rejected } from '../decision';
import { InvalidFieldError } from '../errors/invalid-field.error';
import { assertRecordedPrincipal } from '../principal/principal';
import { isToolEffect } from '../tool-effect/tool-effect';
import { assertRunId } from '../run/step-id';
import { AuditStatementConflictError } from '../errors/audit-statement-conflict.error';
import type { JsonObject } from '../json';
import type { AuditCommand, RecordApprovalDecision, RecordInputAnswer, RecordRunStart, RecordWriteResolution } from './audit-commands';
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

/** What the audit decider answers to a command: the events to append, or the rule the command breaks. */
export type AuditDecision = Decision<AuditEvent>;

/** The audit stream's decider. */
export type AuditDecider = Decider<AuditCommand, AuditState, AuditEvent, AuditDecision>;

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
 * It never throws for a refused command: a malformed one is `rejected` with
 * an {@link InvalidFieldError} naming the field, a second, different
 * statement of one decision with an {@link AuditStatementConflictError}.
 */
export function decideAudit(command: AuditCommand, state: AuditState): AuditDecision {
  try {
    return decideCommand(command, state);
  } catch (error) {
    // The field checks shared with the run decider (`assertRunId`, `assertRecordedPrincipal`) throw.
    if (error instanceof InvalidFieldError) return rejected(error);
    throw error;
  }
}

function decideCommand(command: AuditCommand, state: AuditState): AuditDecision {
  if (command.type === 'RecordWriteResolution') return stateOnce({ kind: 'resolution', data: command.data }, state, () => decideWriteResolution(command, state));
  if (command.type === 'RecordApprovalDecision') return stateOnce({ kind: 'approval', data: command.data }, state, () => decideApprovalDecision(command, state));
  if (command.type === 'RecordInputAnswer') return stateOnce({ kind: 'input', data: command.data }, state, () => decideInputAnswer(command, state));
  if (command.type === 'RecordRunStart') return stateOnce({ kind: 'start', data: command.data }, state, () => decideRunStart(command, state));
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
  if (state.recordedSteps.has(data.stepId)) return accepted();
  const content: Omit<AuditRecorded['data'], 'hash'> = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return accepted({ type: 'AuditRecorded', data: { ...content, hash: auditRecordHash(content) } });
}

/**
 * Records a statement once: nothing when the chain already holds it, refused
 * when it holds another for the same decision, unless every other one is a
 * version 1 statement (its actor an `unverified` name): a version before
 * decisions took effect on the run first stated a decision before deciding
 * it, so such a statement may be of a decision that never took effect, and it
 * must not keep the one that did from being stated.
 */
function stateOnce(statement: DecisionStatement, state: AuditState, decide: () => AuditDecision): AuditDecision {
  const decision = decide();
  const stated = state.statements.get(statementKey(statement));
  if (decision.kind !== 'accepted' || stated === undefined) return decision;
  if (stated.includes(fingerprint(statement.data))) return accepted();
  if (stated.every(isVersion1Statement)) return decision;
  return rejected(new AuditStatementConflictError(statement.data.runId, statementKey(statement)));
}

/** Whether a statement's fingerprint names its actor as an `unverified` name (upcast from version 1). */
function isVersion1Statement(statementFingerprint: string): boolean {
  const content = JSON.parse(statementFingerprint) as Record<string, unknown>;
  const actor = content['decidedBy'] ?? content['resolvedBy'] ?? content['answeredBy'] ?? content['requestedBy'];
  return typeof actor === 'object' && actor !== null && (actor as { kind?: unknown }).kind === 'unverified';
}

function decideInputAnswer({ data, metadata }: RecordInputAnswer, state: AuditState): AuditDecision {
  assertRunId(data.runId, 'data.runId');
  if (typeof data.stepId !== 'string' || !data.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError('data.stepId', 'must be a step id of the run');
  if (typeof data.inputHash !== 'string' || !/^[0-9a-f]{64}$/.test(data.inputHash)) throw new InvalidFieldError('data.inputHash', 'must be a SHA-256 in hex');
  assertRecordedPrincipal(data.answeredBy, 'data.answeredBy');
  if (typeof data.answeredAt !== 'number' || !Number.isFinite(data.answeredAt)) throw new InvalidFieldError('data.answeredAt', 'must be a time in milliseconds');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return accepted({ type: 'InputAnswerRecorded', data: { ...content, hash: auditRecordHash(content) } });
}

function decideRunStart({ data, metadata }: RecordRunStart, state: AuditState): AuditDecision {
  assertRunId(data.runId, 'data.runId');
  if (typeof data.agent !== 'string' || data.agent.trim().length === 0) throw new InvalidFieldError('data.agent', 'must be a non-empty string');
  if (data.mode !== 'interactive' && data.mode !== 'queued') throw new InvalidFieldError('data.mode', 'must be "interactive" or "queued"');
  if (typeof data.inputHash !== 'string' || !/^[0-9a-f]{64}$/.test(data.inputHash)) throw new InvalidFieldError('data.inputHash', 'must be a SHA-256 in hex');
  assertRecordedPrincipal(data.requestedBy, 'data.requestedBy');
  if (typeof data.requestedAt !== 'number' || !Number.isFinite(data.requestedAt)) throw new InvalidFieldError('data.requestedAt', 'must be a time in milliseconds');
  if (data.continuationOf !== null) assertRunId(data.continuationOf, 'data.continuationOf');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return accepted({ type: 'RunStartRecorded', data: { ...content, hash: auditRecordHash(content) } });
}

function decideWriteResolution({ data, metadata }: RecordWriteResolution, state: AuditState): AuditDecision {
  assertRunId(data.runId, 'data.runId');
  if (typeof data.stepId !== 'string' || !data.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError('data.stepId', 'must be a step id of the run');
  if (data.outcome !== 'executed' && data.outcome !== 'notExecuted') throw new InvalidFieldError('data.outcome', 'must be "executed" or "notExecuted"');
  if (typeof data.note !== 'string' || data.note.trim().length === 0) throw new InvalidFieldError('data.note', 'must say how the outcome is known');
  assertRecordedPrincipal(data.resolvedBy, 'data.resolvedBy');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return accepted({ type: 'WriteResolutionRecorded', data: { ...content, hash: auditRecordHash(content) } });
}

function decideApprovalDecision({ data, metadata }: RecordApprovalDecision, state: AuditState): AuditDecision {
  assertRunId(data.runId, 'data.runId');
  if (data.decision !== 'approved' && data.decision !== 'denied') throw new InvalidFieldError('data.decision', 'must be "approved" or "denied"');
  if (!Array.isArray(data.calls) || data.calls.length === 0) throw new InvalidFieldError('data.calls', 'must list the calls decided on');
  data.calls.forEach((call, i) => {
    if (typeof call.stepId !== 'string' || !call.stepId.startsWith(`${data.runId}/`)) throw new InvalidFieldError(`data.calls[${i}].stepId`, 'must be a step id of the run');
    if (!isToolEffect(call.effect)) throw new InvalidFieldError(`data.calls[${i}].effect`, 'must be a tool effect');
  });
  assertRecordedPrincipal(data.decidedBy, 'data.decidedBy');
  const content = { ...data, sequence: state.sequence + 1, recordedAt: metadata.now, previousHash: state.lastHash };
  return accepted({ type: 'ApprovalDecisionRecorded', data: { ...content, hash: auditRecordHash(content) } });
}

/** The audit stream's decider. */
export const auditDecider: AuditDecider = {
  decide: decideAudit,
  evolve: evolveAudit,
  initialState: initialAuditState,
};
