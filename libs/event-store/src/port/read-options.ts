import type { CurrentRevision } from './expected-revision';
import type { RecordedEvent } from './event';
import type { EventFilter } from './event-filter';
import type { Position } from './position';

/** Direction of a read. Same values as the EventStoreDB client's `FORWARDS` / `BACKWARDS`. */
export const Direction = {
  /** Oldest first. */
  FORWARDS: 'forwards',
  /** Newest first. */
  BACKWARDS: 'backwards',
} as const;

/** Union of the values of {@link Direction}. */
export type Direction = (typeof Direction)[keyof typeof Direction];

/** Where a read starts when not at a given revision or position. */
export const ReadFrom = {
  /** The first event. */
  START: 'start',
  /** The last event (useful backwards). */
  END: 'end',
} as const;

/** Union of the values of {@link ReadFrom}. */
export type ReadFrom = (typeof ReadFrom)[keyof typeof ReadFrom];

/** Options of `EventStore.readStream`. */
export interface ReadStreamOptions {
  /**
   * Direction of the read.
   * @default 'forwards'
   */
  readonly direction?: Direction;
  /**
   * First revision to return (inclusive), or `start` / `end`.
   * @default 'start' forwards, 'end' backwards
   */
  readonly fromRevision?: bigint | ReadFrom;
  /**
   * Maximum number of events to return (a positive integer).
   * @default unbounded: the whole stream. Page with it for very long streams.
   */
  readonly maxCount?: number;
}

/** Result of `EventStore.readStream`. A stream that does not exist is a result, not an error. */
export interface ReadStreamResult {
  /** Whether the stream exists (has at least one event that is not soft-deleted). */
  readonly streamExists: boolean;
  /**
   * The stream's current revision, whatever part of it was read: pass it as the
   * `expectedRevision` of the next append decided on this read.
   */
  readonly currentRevision: CurrentRevision;
  /** The events read, in the requested direction. */
  readonly events: readonly RecordedEvent[];
}

/** Options of `EventStore.readAll`. */
export interface ReadAllOptions {
  /**
   * Direction of the read.
   * @default 'forwards'
   */
  readonly direction?: Direction;
  /**
   * First position to return (inclusive), or `start` / `end`.
   * @default 'start' forwards, 'end' backwards
   */
  readonly fromPosition?: Position | ReadFrom;
  /**
   * Maximum number of events to yield (a positive integer).
   * @default unbounded: iterate until the end of `$all` (as of each page read)
   */
  readonly maxCount?: number;
  /** Only events matching this filter. @default no filter */
  readonly filter?: EventFilter;
}
