import { currentSchemaVersion, isVersionedEventType, storedSchemaVersion, upcastEventData } from '@agent-ledger/domain';
import type { RecordedEvent } from '@agent-ledger/event-store';

/** The JSON of an event in a stream's `data:` line. */
export interface StreamedEvent {
  readonly type: string;
  readonly streamName: string;
  /** The event's 0-based number in its stream. */
  readonly revision: number;
  /** The event's position in the store's global order: also the frame's SSE `id`. */
  readonly position: string;
  readonly data: unknown;
  readonly metadata: unknown;
  /** When the store recorded it, ISO 8601. */
  readonly created: string;
}

/**
 * The JSON view of a recorded event, in the current schema version of its
 * type: a payload stored in an older version is upcast (the domain's
 * registry, docs/events.md) and `metadata.schemaVersion` says the version
 * sent, so a subscriber reads one shape per type.
 *
 * @throws UnsupportedEventSchemaError for a payload of a version newer than this version reads
 */
export function streamedEventOf(event: RecordedEvent): StreamedEvent {
  const stored = storedSchemaVersion(event.metadata);
  const upcast = isVersionedEventType(event.type) && stored !== currentSchemaVersion(event.type);
  return {
    type: event.type,
    streamName: event.streamName,
    revision: Number(event.revision),
    position: event.position,
    data: upcastEventData(event.type, stored, event.data),
    metadata: upcast ? { ...event.metadata, schemaVersion: currentSchemaVersion(event.type) } : event.metadata,
    created: event.created.toISOString(),
  };
}

/**
 * One Server-Sent Events frame: `id:` the position, `event:` the type, and
 * the event as one line of JSON (JSON never contains a raw line break).
 */
export function sseFrameOf(event: RecordedEvent): string {
  return `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(streamedEventOf(event))}\n\n`;
}

/** A comment frame (ignored by clients): heartbeats and the greeting. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}
