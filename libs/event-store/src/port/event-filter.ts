/**
 * A server-side filter on `$all` reads and subscriptions: by stream-name
 * prefixes or by event-type prefixes (one kind per filter, as in EventStoreDB,
 * whose `streamNameFilter({ prefixes })` / `eventTypeFilter({ prefixes })` the
 * EventStoreDB adapter maps it to). An event matches when it matches any of
 * the prefixes. Each list must hold at least one non-empty prefix.
 */
export type EventFilter =
  | { readonly streamNamePrefixes: readonly string[]; readonly eventTypePrefixes?: never }
  | { readonly eventTypePrefixes: readonly string[]; readonly streamNamePrefixes?: never };

/** A filter matching every stream of a category: `streamNamePrefixes: ['<category>-']`. */
export function categoryFilter(...categories: readonly string[]): EventFilter {
  return { streamNamePrefixes: categories.map((category) => `${category}-`) };
}

/** A filter matching the given event types exactly or as prefixes (`eventTypePrefixes`). */
export function eventTypeFilter(...prefixes: readonly string[]): EventFilter {
  return { eventTypePrefixes: prefixes };
}
