import type { DomainEvent, EventCausation } from '@agent-ledger/domain';
import { decodeEvent, encodeEvent } from '@agent-ledger/domain';
import type { EventData, RecordedEvent } from '@agent-ledger/event-store';
import { deterministicEventId, serialiseEventData } from '@agent-ledger/event-store';

/** Who caused an append: carried into the events' metadata under EventStoreDB's keys (the domain's {@link EventCausation}). */
export type CausationContext = EventCausation;

/**
 * Turns domain events decided at `expectedRevision` into the store's event
 * data, encoded by the domain's codec (`encodeEvent`: the current schema
 * version of each type in `metadata.schemaVersion`, and the causation). Ids
 * are name-based on (stream, revision, type, payload): a retried append of
 * the same decision is a no-op, while a different decision at the same
 * revision gets different ids and meets the concurrency check.
 */
export function toEventData(
  stream: string,
  nextRevision: bigint,
  events: readonly DomainEvent[],
  causation: CausationContext,
): EventData[] {
  return events.map((event, index) => {
    const revision = nextRevision + BigInt(index);
    return {
      // serialiseEventData is JSON.stringify (the id's name is unchanged), and the append stores that string instead of serialising again.
      id: deterministicEventId(`${stream}|${revision}|${event.type}|${serialiseEventData(event.data)}`),
      ...encodeEvent(event, causation),
    };
  });
}

/**
 * The domain events among recorded ones whose type `isKnown` accepts, each
 * decoded by the domain's codec (`decodeEvent`: in the current shape of its
 * type, a payload stored in an older schema version upcast); a type the
 * codec does not know is skipped (newer writers, older readers). Never feed
 * these to an audit chain check: the chain hashes the payloads as stored.
 *
 * @throws UnsupportedEventSchemaError for a payload of a version newer than this version reads
 */
export function toDomainEvents<E extends DomainEvent>(recorded: readonly RecordedEvent[], isKnown: (type: string) => boolean): E[] {
  const events: E[] = [];
  for (const event of recorded) {
    if (!isKnown(event.type)) continue;
    const decoded = decodeEvent(event);
    // `isKnown` names the caller's event family (isRunEventType, isAuditEventType): E is that family.
    if (decoded !== null) events.push(decoded as DomainEvent as E);
  }
  return events;
}
