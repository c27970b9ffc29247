import type { DomainEvent } from '@agent-ledger/domain';
import { currentSchemaVersion, storedSchemaVersion, upcastEventData } from '@agent-ledger/domain';
import type { EventData, EventMetadata, RecordedEvent } from '@agent-ledger/event-store';
import { deterministicEventId } from '@agent-ledger/event-store';

/** Who caused an append: carried into the events' metadata under EventStoreDB's keys. */
export interface CausationContext {
  /** Shared by every event of one request; the run id by default. */
  readonly correlationId?: string;
  /** The command or event that directly caused the append. */
  readonly causationId?: string;
}

/**
 * Turns domain events decided at `expectedRevision` into the store's event
 * data, each with the current schema version of its type (the domain's one
 * registry, `EVENT_SCHEMA_VERSIONS`) in `metadata.schemaVersion`. Ids are name-based on (stream, revision, type, payload): a retried
 * append of the same decision is a no-op, while a different decision at the
 * same revision gets different ids and meets the concurrency check.
 */
export function toEventData(
  stream: string,
  nextRevision: bigint,
  events: readonly DomainEvent[],
  causation: CausationContext,
): EventData[] {
  return events.map((event, index) => {
    const revision = nextRevision + BigInt(index);
    const metadata: EventMetadata = {
      schemaVersion: currentSchemaVersion(event.type),
      ...(causation.correlationId === undefined ? {} : { $correlationId: causation.correlationId }),
      ...(causation.causationId === undefined ? {} : { $causationId: causation.causationId }),
    };
    return {
      id: deterministicEventId(`${stream}|${revision}|${event.type}|${JSON.stringify(event.data)}`),
      type: event.type,
      data: event.data,
      metadata,
    };
  });
}

/**
 * The domain events among recorded ones, by type (an unknown type is skipped:
 * newer writers, older readers), each in the current shape of its type: a
 * payload stored in an older schema version is upcast by the domain's
 * registry (`upcastEventData`). Never feed these to an audit chain check:
 * the chain hashes the payloads as stored.
 *
 * @throws UnsupportedEventSchemaError for a payload of a version newer than this version reads
 */
export function toDomainEvents<E extends DomainEvent>(recorded: readonly RecordedEvent[], isKnown: (type: string) => boolean): E[] {
  const events: E[] = [];
  for (const event of recorded) {
    if (isKnown(event.type)) events.push({ type: event.type, data: upcastEventData(event.type, storedSchemaVersion(event.metadata), event.data) } as unknown as E);
  }
  return events;
}
