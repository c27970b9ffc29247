import type { AuditEvent } from '../audit/audit-events';
import { AUDIT_EVENT_SCHEMA_VERSIONS } from '../audit/audit-events';
import { UnsupportedEventSchemaError } from '../errors/unsupported-event-schema.error';
import type { Principal } from '../principal/principal';
import type { RunEvent } from '../run/run-events';
import { RUN_EVENT_SCHEMA_VERSIONS } from '../run/run-events';

/*
 * The one registry of event schemas: for every event type of the run and
 * audit streams, its current schema version (what a writer records in the
 * event's `metadata.schemaVersion`) and the upcasters that turn a payload
 * stored in an older version into the current shape. Every reader of stored
 * events goes through the codec built on it (`decodeEvent`, event-codec.ts):
 * the runtime's folds, the queue index, the audit-gap saga, the projections,
 * the HTTP event streams (and so the CLI and the console), the audit verdict.
 *
 * What is never upcast: the audit hash chain. A record's hash covers its
 * payload as stored, in the version it was written in, so the chain checker
 * reads the stored payload, never this function's answer.
 */

/** Every event type with a schema: the run stream's and the audit stream's. */
export type VersionedEventType = RunEvent['type'] | AuditEvent['type'];

/** The current schema version of every event type. */
export const EVENT_SCHEMA_VERSIONS: Readonly<Record<VersionedEventType, number>> = Object.freeze({ ...RUN_EVENT_SCHEMA_VERSIONS, ...AUDIT_EVENT_SCHEMA_VERSIONS });

/** A stored payload as a reader receives it (not yet known to have any shape). */
export type StoredEventData = Readonly<Record<string, unknown>>;

/** Turns a payload of version `n` into version `n + 1`. */
export type EventUpcaster = (data: StoredEventData) => StoredEventData;

/**
 * A name recorded before principals were typed (schema version 1): whatever
 * it says (`key:ops`, `http-api`, `alice`), nobody authenticated it, so it
 * reads as `unverified`, never as the principal it resembles.
 */
export function unverifiedPrincipalOf(recorded: unknown): Principal {
  return { kind: 'unverified', name: typeof recorded === 'string' ? recorded : (JSON.stringify(recorded) ?? '') };
}

/** Version 1 to 2: the free-text actor `field` becomes an `unverified` principal. */
function actorFieldToPrincipal(field: string): EventUpcaster {
  return (data) => ({ ...data, [field]: unverifiedPrincipalOf(data[field]) });
}

/** A version 1 `RunRequested` recorded nobody: it reads as started by an `unverified` principal that says so. */
export const START_NOT_RECORDED: Principal = Object.freeze({ kind: 'unverified', name: '(not recorded)' });

/**
 * The upcasters of each event type, by the version they read: `{ 1: v1 -> v2 }`.
 * A type needs one for every version below its current one (a unit test
 * checks it).
 */
export const EVENT_UPCASTERS: Readonly<Partial<Record<VersionedEventType, Readonly<Record<number, EventUpcaster>>>>> = Object.freeze({
  RunRequested: { 1: (data) => ({ ...data, requestedBy: START_NOT_RECORDED }) },
  CancelRequested: { 1: actorFieldToPrincipal('requestedBy') },
  RunCancelled: { 1: actorFieldToPrincipal('requestedBy') },
  RunRequeuedByOperator: { 1: actorFieldToPrincipal('requestedBy') },
  ApprovalGranted: { 1: actorFieldToPrincipal('decidedBy') },
  ApprovalDenied: { 1: actorFieldToPrincipal('decidedBy') },
  InputSubmitted: { 1: actorFieldToPrincipal('submittedBy') },
  WriteResolutionRecorded: { 1: actorFieldToPrincipal('resolvedBy') },
  ApprovalDecisionRecorded: { 1: actorFieldToPrincipal('decidedBy') },
});

/** Whether `type` is an event type of the registry. */
export function isVersionedEventType(type: string): type is VersionedEventType {
  return Object.prototype.hasOwnProperty.call(EVENT_SCHEMA_VERSIONS, type);
}

/** The schema version a writer records for `type` now (1 for a type outside the registry). */
export function currentSchemaVersion(type: string): number {
  return isVersionedEventType(type) ? EVENT_SCHEMA_VERSIONS[type] : 1;
}

/** The schema version an event's stored metadata states: 1 when it states none (events written before versions were). */
export function storedSchemaVersion(metadata: unknown): unknown {
  if (typeof metadata !== 'object' || metadata === null) return 1;
  const version = (metadata as { schemaVersion?: unknown }).schemaVersion;
  return version === undefined ? 1 : version;
}

/**
 * A stored payload in the current shape of its type: upcast one version at a
 * time from `version` (the event's `metadata.schemaVersion`, see
 * {@link storedSchemaVersion}). A current payload, and a type outside the
 * registry, is returned as it is.
 *
 * @throws UnsupportedEventSchemaError for a version above the current one, or not a positive integer
 */
export function upcastEventData(type: string, version: unknown, data: StoredEventData): StoredEventData {
  if (!isVersionedEventType(type)) return data;
  const current = EVENT_SCHEMA_VERSIONS[type];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > current) {
    throw new UnsupportedEventSchemaError(type, version, current);
  }
  let upcast = data;
  for (let from = version; from < current; from++) {
    const step = EVENT_UPCASTERS[type]?.[from];
    if (step === undefined) throw new UnsupportedEventSchemaError(type, version, current);
    upcast = step(upcast);
  }
  return upcast;
}
