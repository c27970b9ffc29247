import type { AuditEvent, RunEvent } from '@agent-ledger/domain';
import { decodeEvent, isRunEventType } from '@agent-ledger/domain';
import type { Position, RecordedEvent } from '@agent-ledger/event-store';

/**
 * An event of the contract (docs/events.md) as a projection sees it: the domain
 * event (`type` and `data`) with where it was stored. Projections read nothing
 * else: no wall clock, no arrival order across stores.
 */
export type ProjectedEvent = (RunEvent | ProjectedAuditEvent) & {
  /** `run-<runId>` or `audit-<runId>`. */
  readonly streamName: string;
  /** The 0-based revision of the event in its stream. */
  readonly revision: number;
  /** The event's position in its store's `$all` (not comparable across stores). */
  readonly position: Position;
};

/** The audit events the projections read (a step's audit record, a person's approval decision, who started the run). */
const AUDIT_EVENT_TYPES: ReadonlySet<string> = new Set<AuditEvent['type']>(['AuditRecorded', 'ApprovalDecisionRecorded', 'RunStartRecorded']);

/** The audit events this version projects; other audit events (`WriteResolutionRecorded`) are skipped. */
export type ProjectedAuditEvent = Extract<AuditEvent, { readonly type: 'AuditRecorded' | 'ApprovalDecisionRecorded' | 'RunStartRecorded' }>;

/** Whether the event is one of an audit stream (`audit-<runId>`), not of the run's own stream. */
export function isAuditSideEvent(event: ProjectedEvent): event is ProjectedEvent & ProjectedAuditEvent {
  return AUDIT_EVENT_TYPES.has(event.type);
}

/** Whether this version of the projections knows the event type (readers ignore the others). */
export function isProjectedEventType(type: string): type is ProjectedEvent['type'] {
  return isRunEventType(type) || AUDIT_EVENT_TYPES.has(type);
}

/**
 * The projected form of a recorded event, decoded by the domain's codec
 * (`decodeEvent`: in the current shape of its type, a payload stored in an
 * older schema version upcast), or `null` for a type this version does not
 * project (it is skipped, and the checkpoint still moves past it; an audit
 * type it does not project is not decoded at all).
 *
 * @throws UnsupportedEventSchemaError for a payload of a version newer than this version reads
 */
export function toProjectedEvent(recorded: RecordedEvent): ProjectedEvent | null {
  if (!isProjectedEventType(recorded.type)) return null;
  const event = decodeEvent(recorded);
  if (event === null || event.type === 'WriteResolutionRecorded' || event.type === 'InputAnswerRecorded') return null;
  // A literal of the five fields, not a spread of the decoded event: one object of one shape per event (a rebuild makes a million).
  return { type: event.type, data: event.data, streamName: recorded.streamName, revision: Number(recorded.revision), position: recorded.position } as ProjectedEvent;
}
