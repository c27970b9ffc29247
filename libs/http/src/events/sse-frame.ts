import { currentSchemaVersion, decodeEvent, storedSchemaVersion } from '@agent-ledger/domain';
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
 * type: decoded by the domain's codec (a payload stored in an older version
 * upcast, docs/events.md) and `metadata.schemaVersion` says the version
 * sent, so a subscriber reads one shape per type. A type this version does
 * not know is sent as stored.
 *
 * @throws UnsupportedEventSchemaError for a payload of a version newer than this version reads
 */
export function streamedEventOf(event: RecordedEvent): StreamedEvent {
  const decoded = decodeEvent(event);
  const sent = decoded === null ? null : currentSchemaVersion(decoded.type);
  return {
    type: event.type,
    streamName: event.streamName,
    revision: Number(event.revision),
    position: event.position,
    data: decoded === null ? event.data : decoded.data,
    metadata: sent === null || storedSchemaVersion(event.metadata) === sent ? event.metadata : { ...event.metadata, schemaVersion: sent },
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
