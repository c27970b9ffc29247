import type { AuditEvent } from '../audit/audit-events';
import { isAuditEventType } from '../audit/audit-events';
import type { DomainEvent } from '../decider';
import type { RunEvent } from '../run/run-events';
import { isRunEventType } from '../run/run-events';
import type { StoredEventData } from './event-schemas';
import { currentSchemaVersion, storedSchemaVersion, upcastEventData } from './event-schemas';

/*
 * The one codec of stored events, on top of the registry (event-schemas.ts).
 * `decodeEvent` is how every reader turns a stored event into a domain event:
 * the runtime's folds, the audit-gap saga, the queue index, the projections,
 * the HTTP event streams, the audit review. `encodeEvent` is what a writer
 * stores beside the payload. The codec trusts a payload's shape for its type
 * and schema version (the runtime's own writer recorded it); it does not
 * validate it again.
 *
 * The audit hash chain never reads through it: a record's hash covers its
 * payload as stored, and a decoded payload may be upcast.
 */

/** Every event of the run and audit streams, in the current shape of its type. */
export type LedgerEvent = RunEvent | AuditEvent;

/**
 * A stored event as the codec reads it: its type, its payload and its
 * metadata, as stored. The event store's recorded events have this shape;
 * the domain depends on no store.
 */
export interface StoredEvent {
  readonly type: string;
  readonly data: StoredEventData;
  /** `schemaVersion` is read from it; absent (or no metadata) means version 1. */
  readonly metadata?: unknown;
}

/** Who caused an append: recorded in the events' metadata under EventStoreDB's keys. */
export interface EventCausation {
  /** Shared by every event of one request; the run id by default. */
  readonly correlationId?: string;
  /** The command or event that directly caused the append. */
  readonly causationId?: string;
  /**
   * The W3C trace context (`traceparent`, `tracestate`) the append was made
   * in, so that a reader in another process continues the run's trace. Opaque
   * here: the runtime writes and validates it.
   */
  readonly traceContext?: EventTraceContext;
}

/** A W3C trace context as stored in an event's metadata; the domain neither reads nor checks it. */
export interface EventTraceContext {
  /** The W3C `traceparent` of the span the append was made in. */
  readonly traceparent: string;
  /** The W3C `tracestate` that went with it, if any. */
  readonly tracestate?: string;
}

/** The metadata a writer stores with an event. */
export type EncodedEventMetadata = {
  /** The current schema version of the event's type (1 for a type outside the registry). */
  readonly schemaVersion: number;
  readonly $correlationId?: string;
  readonly $causationId?: string;
  readonly traceparent?: string;
  readonly tracestate?: string;
};

/** An event as a writer stores it: its type, its payload, and its metadata. */
export type EncodedEvent = {
  readonly type: string;
  readonly data: object;
  readonly metadata: EncodedEventMetadata;
};

/**
 * The domain event a stored event records, in the current shape of its type
 * (a payload stored in an older schema version is upcast by the registry),
 * or `null` for a type this version does not know (newer writers, older
 * readers: skip it).
 *
 * @throws UnsupportedEventSchemaError for a payload of a schema version newer than this version reads
 */
export function decodeEvent(stored: StoredEvent): LedgerEvent | null {
  if (!isRunEventType(stored.type) && !isAuditEventType(stored.type)) return null;
  return decoded<LedgerEvent>(stored);
}

/** {@link decodeEvent} for a reader of run streams: `null` for any type that is not a run event's. */
export function decodeRunEvent(stored: StoredEvent): RunEvent | null {
  return isRunEventType(stored.type) ? decoded<RunEvent>(stored) : null;
}

/** {@link decodeEvent} for a reader of audit streams: `null` for any type that is not an audit event's. */
export function decodeAuditEvent(stored: StoredEvent): AuditEvent | null {
  return isAuditEventType(stored.type) ? decoded<AuditEvent>(stored) : null;
}

/** The event to store: the domain event with its type's current schema version and its causation in the metadata. */
export function encodeEvent(event: DomainEvent, causation: EventCausation = {}): EncodedEvent {
  return {
    type: event.type,
    data: event.data,
    metadata: {
      schemaVersion: currentSchemaVersion(event.type),
      ...(causation.correlationId === undefined ? {} : { $correlationId: causation.correlationId }),
      ...(causation.causationId === undefined ? {} : { $causationId: causation.causationId }),
      ...(causation.traceContext === undefined ? {} : { traceparent: causation.traceContext.traceparent }),
      ...(causation.traceContext?.tracestate === undefined ? {} : { tracestate: causation.traceContext.tracestate }),
    },
  };
}

/** The one place a stored payload becomes typed: upcast to its type's current version, then trusted as that type's shape. */
function decoded<E extends LedgerEvent>(stored: StoredEvent): E {
  return { type: stored.type, data: upcastEventData(stored.type, storedSchemaVersion(stored.metadata), stored.data) } as unknown as E;
}
