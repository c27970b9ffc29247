import type { JsonValue } from './json';
import type { Position } from './position';

/**
 * Metadata of an event: a plain JSON object. The reserved keys use
 * EventStoreDB's names, so its `$by_correlation_id` projection and tooling
 * understand them; any other key is free.
 */
export interface EventMetadata {
  /** Id shared by every event caused, directly or not, by one request (the run id, a request id). */
  readonly $correlationId?: string;
  /** Id of the event or command that directly caused this event. */
  readonly $causationId?: string;
  /** Version of this event type's payload schema (a positive integer); absent means 1. */
  readonly schemaVersion?: number;
  /** Free keys. */
  readonly [key: string]: JsonValue | undefined;
}

/**
 * An event to append.
 *
 * @typeParam Type - the event's type string (its public name, e.g. `StepStarted`).
 * @typeParam Data - the payload: a plain JSON object (checked at run time:
 *   functions, `bigint`, symbols, non-finite numbers, `undefined` in arrays,
 *   class instances such as `Date` or `Map`, and cycles are rejected).
 */
export interface EventData<Type extends string = string, Data extends object = object> {
  /**
   * A UUID (any version). Derive it deterministically (e.g. a UUIDv5 of the
   * step id) to make a retried append idempotent. Stored and read back in
   * lower case.
   */
  readonly id: string;
  /** The event type: non-empty, at most 256 characters, no control characters, not starting with `$`. */
  readonly type: Type;
  /** The payload. */
  readonly data: Data;
  /** Optional metadata; read back as `{}` when absent. */
  readonly metadata?: EventMetadata;
}

/** An event as stored, read back from a stream, `$all` or a subscription. */
export interface RecordedEvent<Type extends string = string, Data extends object = Record<string, unknown>> {
  /** The stream it belongs to. */
  readonly streamName: string;
  /** Its id, lower case. */
  readonly id: string;
  /** Its type. */
  readonly type: Type;
  /** Its 0-based number in its stream. */
  readonly revision: bigint;
  /** Its place in the global order. */
  readonly position: Position;
  /** The payload, parsed from JSON. */
  readonly data: Data;
  /** The metadata, `{}` when none was given. */
  readonly metadata: EventMetadata;
  /** When the store recorded it (the store's clock). */
  readonly created: Date;
}
