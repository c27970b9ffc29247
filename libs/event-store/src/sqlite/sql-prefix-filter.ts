import type { EventFilter } from '../port/event-filter';

/** A filter as an SQL condition on the `events` table, with its parameters. */
export interface SqlPrefixFilter {
  readonly condition: string;
  readonly parameters: readonly string[];
}

/** Printable ASCII, whose UTF-16 order is SQLite's BINARY (UTF-8 byte) order; `~` (the last) cannot be incremented. */
const RANGE_SAFE_PREFIX = /^[\x20-\x7e]*[\x20-\x7d]$/;

/**
 * The SQL condition that selects the same events as `filter`, so that SQLite
 * skips what a subscription would drop without building it in JavaScript:
 * `prefix <= column < prefix-with-its-last-character-incremented`, evaluated
 * on the rows of the position range without a function call. Null when a
 * prefix is not plain printable ASCII: the caller then filters in JavaScript.
 */
export function sqlPrefixFilter(filter: EventFilter): SqlPrefixFilter | null {
  // The unary `+` keeps SQLite from choosing the stream-name index over the position range: a page is read in position order.
  const column = filter.streamNamePrefixes !== undefined ? '+stream_name' : '+event_type';
  const prefixes = filter.streamNamePrefixes ?? filter.eventTypePrefixes;
  if (!prefixes.every((p) => RANGE_SAFE_PREFIX.test(p))) return null;
  return {
    condition: `(${prefixes.map(() => `(${column} >= ? AND ${column} < ?)`).join(' OR ')})`,
    parameters: prefixes.flatMap((p) => [p, `${p.slice(0, -1)}${String.fromCharCode(p.charCodeAt(p.length - 1) + 1)}`]),
  };
}
