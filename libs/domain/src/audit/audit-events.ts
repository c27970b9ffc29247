import type { DomainEvent } from '../decider';
import type { ToolEffect } from '../tool-effect/tool-effect';
import type { StepKind } from '../run/step-id';
import type { Principal } from '../principal/principal';
import type { RunMode } from '../run/run-mode';

/**
 * A step's audit record, in the run's audit stream (`audit-<runId>`). For a
 * write, its absence is what fails a run closed. `sequence` numbers a run's
 * audit records from 1, with no gap; `hash` chains each record to the one
 * before it (`previousHash`), so an edited, removed or reordered record is
 * detected (see `verifyAuditChain`).
 */
export type AuditRecorded = DomainEvent<
  'AuditRecorded',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly sequence: number;
    readonly kind: StepKind;
    readonly toolName: string | null;
    readonly effect: ToolEffect | null;
    readonly idempotencyKey: string | null;
    readonly outcome: 'succeeded' | 'failed' | 'responded';
    readonly attempt: number;
    readonly recordedAt: number;
    /** The hash of the run's previous audit record; null for the first. */
    readonly previousHash: string | null;
    /** SHA-256 (hex) of this record's canonical JSON without `hash`. */
    readonly hash: string;
  }
>;

/**
 * An operator's statement of what became of a write that was in flight when
 * its run was dead-lettered, stated once the requeue took effect on the run
 * (`RunRequeuedByOperator`), from that event: one statement per requeue. The
 * continuation is not started before it is stored. Part of the run's audit
 * chain, like every audit record.
 */
export type WriteResolutionRecorded = DomainEvent<
  'WriteResolutionRecorded',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly sequence: number;
    readonly toolName: string;
    readonly effect: ToolEffect;
    readonly idempotencyKey: string;
    readonly outcome: 'executed' | 'notExecuted';
    readonly note: string;
    /** Who stated it: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly resolvedBy: Principal;
    readonly continuationRunId: string;
    readonly recordedAt: number;
    readonly previousHash: string | null;
    readonly hash: string;
  }
>;

/** One call a person decided on, as the audit trail keeps it. */
export interface DecidedCall {
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: ToolEffect;
  /** SHA-256 (hex) of the call's arguments in canonical JSON: what exactly was approved, without copying the data. */
  readonly argumentsHash: string;
}

/**
 * A person's decision on tool calls a run waited to have approved, stated
 * once the decision took effect on the run (`ApprovalGranted` or
 * `ApprovalDenied`), from that event: one statement per decided round, none
 * for a refused decision. Nothing the decision allows (the approved calls, the
 * denial given to the model) happens before it is stored. Part of the run's
 * audit chain.
 */
export type ApprovalDecisionRecorded = DomainEvent<
  'ApprovalDecisionRecorded',
  {
    readonly runId: string;
    readonly round: number;
    readonly sequence: number;
    readonly decision: 'approved' | 'denied';
    readonly calls: readonly DecidedCall[];
    /** Who decided: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly decidedBy: Principal;
    readonly reason: string | null;
    readonly recordedAt: number;
    readonly previousHash: string | null;
    readonly hash: string;
  }
>;

/**
 * A person's answer to a tool that asked for input, stated once the answer
 * took effect on the run (`InputSubmitted`), from that event: one statement
 * per answered step. The tool is not given the input before it is stored. The
 * input itself stays in the run's stream; the audit chain keeps its SHA-256.
 */
export type InputAnswerRecorded = DomainEvent<
  'InputAnswerRecorded',
  {
    readonly runId: string;
    /** The step of the tool that asked. */
    readonly stepId: string;
    readonly sequence: number;
    /** SHA-256 (hex) of the input in canonical JSON. */
    readonly inputHash: string;
    /** Who answered: the authenticated principal `InputSubmitted.submittedBy` records. */
    readonly answeredBy: Principal;
    /** When the answer took effect on the run (`InputSubmitted.submittedAt`). */
    readonly answeredAt: number;
    readonly recordedAt: number;
    readonly previousHash: string | null;
    readonly hash: string;
  }
>;

/**
 * Who started the run, and what they asked for, stated from the run's
 * `RunRequested` once it is stored: one statement per run, so that the audit
 * chain alone answers "who asked for this". The input itself stays in the
 * run's stream; the chain keeps its SHA-256.
 */
export type RunStartRecorded = DomainEvent<
  'RunStartRecorded',
  {
    readonly runId: string;
    readonly sequence: number;
    readonly agent: string;
    readonly mode: RunMode;
    /** SHA-256 (hex) of the run's input in canonical JSON. */
    readonly inputHash: string;
    /** Who started it: the authenticated principal `RunRequested.requestedBy` records (for a continuation, the operator who requeued). */
    readonly requestedBy: Principal;
    /** When the request took effect (`RunRequested.requestedAt`). */
    readonly requestedAt: number;
    /** For a continuation: the dead-lettered run it continues; null otherwise. */
    readonly continuationOf: string | null;
    readonly recordedAt: number;
    readonly previousHash: string | null;
    readonly hash: string;
  }
>;

/** Every event of an audit stream. */
export type AuditEvent = AuditRecorded | WriteResolutionRecorded | ApprovalDecisionRecorded | InputAnswerRecorded | RunStartRecorded;

/**
 * The current schema version of each audit event's payload (see
 * `event-schemas.ts` for the upcasters). A record's hash covers its payload
 * as stored, in the version it was written in.
 */
export const AUDIT_EVENT_SCHEMA_VERSIONS: Readonly<Record<AuditEvent['type'], number>> = Object.freeze({
  AuditRecorded: 1,
  WriteResolutionRecorded: 2,
  ApprovalDecisionRecorded: 2,
  InputAnswerRecorded: 1,
  RunStartRecorded: 1,
});

/** Whether `type` is an audit event type this version knows. */
export function isAuditEventType(type: string): type is AuditEvent['type'] {
  return Object.prototype.hasOwnProperty.call(AUDIT_EVENT_SCHEMA_VERSIONS, type);
}
