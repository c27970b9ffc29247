import type { DomainEvent } from '../decider';
import type { ToolEffect } from '../tool-effect/tool-effect';
import type { StepKind } from '../run/step-id';

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

/** Every event of an audit stream. */
export type AuditEvent = AuditRecorded;

/** The schema version of each audit event's payload. */
export const AUDIT_EVENT_SCHEMA_VERSIONS: Readonly<Record<AuditEvent['type'], number>> = Object.freeze({
  AuditRecorded: 1,
});
