/**
 * The expected state of a stream for an append or a delete: one of these
 * constants, or the exact revision (a `bigint`, 0-based) of the stream's last
 * event. Same values as the EventStoreDB client's `ANY`, `NO_STREAM`,
 * `STREAM_EXISTS` and `bigint` revisions, so the EventStoreDB adapter maps them
 * one to one.
 */
export const ExpectedRevision = {
  /** No concurrency check. Re-appending the same event ids is still deduplicated (see docs/event-store.md). */
  ANY: 'any',
  /** The stream must not exist (or must be soft-deleted). */
  NO_STREAM: 'no_stream',
  /** The stream must exist, at any revision. */
  STREAM_EXISTS: 'stream_exists',
} as const;

/** One of the {@link ExpectedRevision} constants, or the exact revision of the stream's last event. */
export type ExpectedRevision = (typeof ExpectedRevision)[keyof typeof ExpectedRevision] | bigint;

/**
 * The current state of a stream: the revision of its last event, or
 * `no_stream` when it has none (never written, or soft-deleted). This is what
 * a reader passes back as the expected revision of its next append.
 */
export type CurrentRevision = typeof ExpectedRevision.NO_STREAM | bigint;

/** A revision or a constant, formatted for messages (`5`, `no_stream`). */
export function formatRevision(revision: ExpectedRevision): string {
  return typeof revision === 'bigint' ? revision.toString() : revision;
}
