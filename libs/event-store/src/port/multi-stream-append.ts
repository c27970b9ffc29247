import type { EventData } from './event';
import type { AppendResult } from './event-store';
import type { ExpectedRevision } from './expected-revision';

/** One stream's part of {@link MultiStreamAppend.appendToStreams}. */
export interface StreamAppend {
  readonly streamName: string;
  /** At least one event, checked as `append` checks them. */
  readonly events: readonly EventData[];
  /** The state of this stream the part was decided on, as `append`'s option. */
  readonly expectedRevision: ExpectedRevision;
}

/**
 * Appends to several streams in one commit: an optional capability of an
 * event store, which {@link hasMultiStreamAppend} tells. The embedded,
 * PostgreSQL and in-memory stores have it; the EventStoreDB adapter does not
 * (an EventStoreDB append writes one stream).
 */
export interface MultiStreamAppend {
  /**
   * Appends each part to its stream, all in one commit or nothing. Each part
   * is decided as `append` decides one (its expected revision; the same ids
   * at the same revisions are an idempotent re-append, answered without
   * writing), and one part refused refuses the whole call. The written events
   * take their places in `$all` in the order of the parts, one after the
   * other, with no other event between them.
   *
   * @returns each part's result, in the order of the parts
   * @throws WrongExpectedRevisionError, StreamDeletedError for the first part refused; nothing written.
   * @throws InvalidOptionError (`appends`) no part, or a stream named in two parts; InvalidStreamNameError,
   *   InvalidEventError, EventTooLargeError, InvalidOptionError for a part's input; nothing written.
   * @throws StoreUnavailableError, StoreFullError, StoreFailureError, StoreClosedError the store failed; nothing written.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
}

/** Whether the store appends to several streams in one commit ({@link MultiStreamAppend}). */
export function hasMultiStreamAppend<T extends object>(store: T): store is T & MultiStreamAppend {
  return typeof (store as Partial<MultiStreamAppend>).appendToStreams === 'function';
}
