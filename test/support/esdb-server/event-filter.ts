import type { RecordedEvent } from './recorded-event';

/** A server-side `$all` filter on stream name or event type, by prefixes or by regular expression. */
export interface EventFilter {
  readonly on: 'stream-name' | 'event-type';
  matches(event: RecordedEvent): boolean;
}

/** The expression of a filter, as both `streams.ReadReq` and `persistent_subscriptions.CreateReq` carry it. */
interface FilterExpressionProto {
  getRegex(): string;
  getPrefixList(): string[];
}

/** The part of a `FilterOptions` message (of a read or of a persistent subscription) a filter is built from. */
export interface FilterOptionsProto {
  hasStreamIdentifier(): boolean;
  getStreamIdentifier(): FilterExpressionProto | undefined;
  hasEventType(): boolean;
  getEventType(): FilterExpressionProto | undefined;
}

/** Why a `FilterOptions` message could not be turned into a filter (the server answers INVALID_ARGUMENT). */
export interface InvalidFilter {
  readonly invalid: string;
}

/**
 * Builds the filter EventStoreDB applies for a `ReadReq.Options.FilterOptions`: a non-empty
 * `regex` wins over `prefix`; prefixes match with `startsWith`, any of them being enough.
 *
 * Warning: the regular expression is evaluated by JavaScript's engine, the real server uses
 * .NET's; the common subset (anchors, classes, quantifiers) behaves the same.
 */
export function eventFilterFromProto(options: FilterOptionsProto): EventFilter | InvalidFilter {
  const on = options.hasStreamIdentifier() ? 'stream-name' : options.hasEventType() ? 'event-type' : undefined;
  const expression = options.hasStreamIdentifier() ? options.getStreamIdentifier() : options.getEventType();
  if (on === undefined || expression === undefined) return { invalid: 'filter has neither stream_identifier nor event_type' };
  const subject = (event: RecordedEvent): string => (on === 'stream-name' ? event.streamName : event.type);
  const regex = expression.getRegex();
  if (regex !== '') {
    let compiled: RegExp;
    try {
      compiled = new RegExp(regex);
    } catch {
      return { invalid: `'${regex}' is not a valid regular expression` };
    }
    return { on, matches: (event) => compiled.test(subject(event)) };
  }
  const prefixes = expression.getPrefixList();
  return { on, matches: (event) => prefixes.some((prefix) => subject(event).startsWith(prefix)) };
}

/** Type guard separating a usable filter from an invalid one. */
export function isInvalidFilter(filter: EventFilter | InvalidFilter): filter is InvalidFilter {
  return 'invalid' in filter;
}
