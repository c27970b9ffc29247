import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/** The part of an append an {@link InvalidEventError} is about. */
export const InvalidEventField = {
  /** The list of events itself (empty, not an array). */
  EVENTS: 'events',
  /** The event object (null, not an object). */
  EVENT: 'event',
  /** `id`: must be a UUID. */
  ID: 'id',
  /** `type`: a non-empty string not starting with `$`. */
  TYPE: 'type',
  /** `data`: a plain JSON object. */
  DATA: 'data',
  /** `metadata`: a plain JSON object with well-typed reserved keys. */
  METADATA: 'metadata',
} as const;

/** Union of the values of {@link InvalidEventField}. */
export type InvalidEventField = (typeof InvalidEventField)[keyof typeof InvalidEventField];

/**
 * An event of an append is not acceptable. Nothing of the append was written,
 * even if the other events were valid.
 */
export class InvalidEventError extends EventStoreError {
  override readonly code = EventStoreErrorCode.INVALID_EVENT;

  constructor(
    /** Which part of the event is wrong. */
    readonly field: InvalidEventField,
    /** Index of the offending event in the append's list (`undefined` when about the list itself). */
    readonly eventIndex: number | undefined,
    /** Why, in words, with a JSON path when inside `data` or `metadata` (e.g. `data.items[2]`). */
    readonly reason: string,
  ) {
    super(
      `Invalid ${field}${eventIndex === undefined ? '' : ` of event #${eventIndex}`}: ${reason}`,
    );
  }
}
