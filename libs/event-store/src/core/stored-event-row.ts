import type { RecordedEvent } from '../port/event';
import type { Position } from '../port/position';
import { positionFromParts } from '../port/position';

/**
 * An event as the embedded and in-memory stores keep it: one row of the
 * `events` table (column names as in the SQLite schema).
 */
export interface StoredEventRow {
  /** Global sequence number (the position). */
  readonly position: number;
  readonly stream_name: string;
  readonly revision: number;
  readonly event_id: string;
  readonly event_type: string;
  /** JSON text. */
  readonly data: string;
  /** JSON text. */
  readonly metadata: string;
  /** Milliseconds since the epoch. */
  readonly created_at: number;
}

/** Turns a stored row into a fresh {@link RecordedEvent} (parsed anew: callers may mutate it freely). */
export function toRecordedEvent(row: StoredEventRow): RecordedEvent {
  return {
    streamName: row.stream_name,
    id: row.event_id,
    type: row.event_type,
    revision: BigInt(row.revision),
    position: sequencePosition(row.position),
    data: JSON.parse(row.data) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
    created: new Date(row.created_at),
  };
}

/** The position of a global sequence number (commit and prepare both): its token written directly when the number is a safe non-negative integer. */
function sequencePosition(sequence: number): Position {
  if (Number.isSafeInteger(sequence) && sequence >= 0) return `${sequence}:${sequence}` as Position;
  const seq = BigInt(sequence);
  return positionFromParts({ commit: seq, prepare: seq });
}
