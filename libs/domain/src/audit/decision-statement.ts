import { createHash } from 'node:crypto';
import type { JsonValue } from '../json';
import type { RunEvent } from '../run/run-events';
import type { PendingApproval } from '../run/pending-approval';
import type { AuditCommand, RecordApprovalDecision, RecordInputAnswer, RecordRunStart, RecordWriteResolution } from './audit-commands';
import type { AuditEvent } from './audit-events';
import { canonicalJson } from './canonical-json';

/**
 * What the audit chain must state about a decision that took effect on a run:
 * derived from the accepted run event, never from the request, so that only
 * the decision the run holds is ever stated.
 */
export type DecisionStatement =
  | { readonly kind: 'approval'; readonly data: RecordApprovalDecision['data'] }
  | { readonly kind: 'input'; readonly data: RecordInputAnswer['data'] }
  | { readonly kind: 'resolution'; readonly data: RecordWriteResolution['data'] }
  | { readonly kind: 'start'; readonly data: RecordRunStart['data'] };

/** SHA-256 (hex) of a JSON value in canonical JSON. */
export function canonicalSha256(value: JsonValue): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/**
 * The statement a run event calls for, if any: `RunRequested` (who started
 * the run), `ApprovalGranted` and
 * `ApprovalDenied` (with the calls that waited, from `pending`), `InputSubmitted`,
 * and `RunRequeuedByOperator` with a resolution of the write in flight.
 */
export function statementOf(event: RunEvent, pending: PendingApproval | null): DecisionStatement | null {
  switch (event.type) {
    case 'RunRequested':
      return {
        kind: 'start',
        data: {
          runId: event.data.runId,
          agent: event.data.agent,
          mode: event.data.mode,
          inputHash: canonicalSha256(event.data.input),
          requestedBy: event.data.requestedBy,
          requestedAt: event.data.requestedAt,
          continuationOf: event.data.continuation?.of ?? null,
        },
      };
    case 'ApprovalGranted':
    case 'ApprovalDenied': {
      const calls = (pending?.calls ?? []).filter((call) => event.data.stepIds.includes(call.stepId));
      return {
        kind: 'approval',
        data: {
          runId: event.data.runId,
          round: event.data.round,
          decision: event.type === 'ApprovalGranted' ? 'approved' : 'denied',
          calls: calls.map((call) => ({ stepId: call.stepId, toolName: call.toolName, effect: call.effect, argumentsHash: canonicalSha256(call.arguments) })),
          decidedBy: event.data.decidedBy,
          reason: event.data.reason,
        },
      };
    }
    case 'InputSubmitted':
      return {
        kind: 'input',
        data: { runId: event.data.runId, stepId: event.data.stepId, inputHash: canonicalSha256(event.data.input), answeredBy: event.data.submittedBy, answeredAt: event.data.submittedAt },
      };
    case 'RunRequeuedByOperator': {
      const { inFlightWrite, resolution } = event.data;
      if (inFlightWrite === null || resolution === null) return null;
      return {
        kind: 'resolution',
        data: {
          runId: event.data.runId,
          stepId: inFlightWrite.stepId,
          toolName: inFlightWrite.toolName,
          effect: inFlightWrite.effect,
          idempotencyKey: inFlightWrite.idempotencyKey,
          outcome: resolution.outcome,
          note: resolution.note,
          resolvedBy: event.data.requestedBy,
          continuationRunId: event.data.continuationRunId,
        },
      };
    }
    default:
      return null;
  }
}

/**
 * The decision a statement is about, within its run: `start`, `approval:<round>`,
 * `input:<stepId>`, `resolution:<stepId>:<continuationRunId>`. A run holds at
 * most one decision under each key, so its audit chain holds at most one
 * statement under each.
 */
export function statementKey(statement: DecisionStatement): string {
  return statementKeyOf(statement.kind, statement.data);
}

/** The decision key of an audit event that states a decision; null for a step's audit record. */
export function auditStatementKey(event: AuditEvent): string | null {
  switch (event.type) {
    case 'ApprovalDecisionRecorded':
      return statementKeyOf('approval', event.data);
    case 'InputAnswerRecorded':
      return statementKeyOf('input', event.data);
    case 'WriteResolutionRecorded':
      return statementKeyOf('resolution', event.data);
    case 'RunStartRecorded':
      return statementKeyOf('start', event.data);
    default:
      return null;
  }
}

/** The decision key of a run event that calls for a statement; null for any other event. */
export function runEventStatementKey(event: RunEvent): string | null {
  const statement = statementOf(event, null);
  return statement === null ? null : statementKey(statement);
}

function statementKeyOf(kind: DecisionStatement['kind'], data: { readonly runId: string; readonly round?: number; readonly stepId?: string; readonly continuationRunId?: string }): string {
  if (kind === 'start') return 'start';
  if (kind === 'approval') return `approval:${data.round}`;
  if (kind === 'input') return `input:${data.stepId}`;
  return `resolution:${data.stepId}:${data.continuationRunId}`;
}

/** The audit command that records a statement. */
export function statementCommand(statement: DecisionStatement, now: number): AuditCommand {
  const metadata = { now };
  if (statement.kind === 'approval') return { type: 'RecordApprovalDecision', data: statement.data, metadata };
  if (statement.kind === 'input') return { type: 'RecordInputAnswer', data: statement.data, metadata };
  if (statement.kind === 'start') return { type: 'RecordRunStart', data: statement.data, metadata };
  return { type: 'RecordWriteResolution', data: statement.data, metadata };
}
