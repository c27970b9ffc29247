import type { CurrentRevision, ExpectedRevision } from '../expected-revision';
import { formatRevision } from '../expected-revision';
import type { EventStoreErrorOptions } from './event-store-error';
import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * The stream was not at the revision the append (or delete) expected: another
 * writer got there first, or the caller's view of the stream is stale. Nothing
 * was written. The caller re-reads the stream, decides again, and appends with
 * the new revision (or gives up).
 *
 * Fields mirror the EventStoreDB client's `WrongExpectedVersionError`.
 */
export class WrongExpectedRevisionError extends EventStoreError {
  override readonly code = EventStoreErrorCode.WRONG_EXPECTED_REVISION;

  constructor(
    /** The stream the append targeted. */
    readonly streamName: string,
    /** The expected revision the caller passed. */
    readonly expected: ExpectedRevision,
    /** The stream's revision when the append was checked (`no_stream` when it did not exist). */
    readonly actual: CurrentRevision,
    options?: EventStoreErrorOptions,
  ) {
    super(
      `Wrong expected revision on stream '${streamName}': expected ${formatRevision(expected)}, actual ${formatRevision(actual)}`,
      options,
    );
  }
}
