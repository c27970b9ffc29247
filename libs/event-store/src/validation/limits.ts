/**
 * Largest accepted event, and largest accepted append (sum of its events), in
 * bytes: 1 MiB, EventStoreDB's default `MaxAppendSize`. Size is the UTF-8 byte
 * length of the event type plus serialised data plus serialised metadata.
 */
export const MAX_APPEND_SIZE = 1_048_576;

/** Longest accepted event type, in characters. */
export const MAX_EVENT_TYPE_LENGTH = 256;

/**
 * Default number of events a subscription or an `$all` read fetches at once.
 * @default 256
 */
export const DEFAULT_BATCH_SIZE = 256;
