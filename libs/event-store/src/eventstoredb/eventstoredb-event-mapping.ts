import type { AllStreamResolvedEvent, JSONEventData, JSONType, ResolvedEvent } from '@eventstore/db-client';
import type { EventMetadata, RecordedEvent } from '../port/event';
import { StoreFailureError } from '../port/errors/store-failure.error';
import type { PreparedEvent } from '../validation/prepared-event';
import { isPlainObject } from '../validation/json-check';
import { fromClientPosition } from './eventstoredb-position';

/** A resolved event as the client gives it, from a stream or from `$all`. */
export type ClientResolvedEvent = ResolvedEvent | AllStreamResolvedEvent;

const utf8 = new TextEncoder();

/**
 * The client's JSON event for an event the shared validation prepared. The
 * metadata goes as the exact bytes validated (a plain `Uint8Array`: client
 * 6.2.1 tests `constructor === Uint8Array`, so a `Buffer` would be
 * re-serialised); the data is a private copy parsed back from the validated
 * JSON, which the client serialises to the same text (callers may mutate
 * their objects while the append is in flight).
 */
export function toClientEvent(event: PreparedEvent): JSONEventData {
  return {
    id: event.id,
    contentType: 'application/json',
    type: event.type,
    data: JSON.parse(event.dataJson) as JSONType,
    metadata: utf8.encode(event.metadataJson),
  };
}

/**
 * Whether a record is EventStoreDB's own rather than one of the product's:
 * system streams (`$...`, including metastreams `$$<stream>`) and system event
 * types (`$metadata`, `$streamDeleted` tombstones, `$>` links...). The port
 * never writes either (its stream names start with a letter and its types
 * may not start with `$`), and the other stores have none, so the adapter
 * hides them from `$all` reads and subscriptions.
 */
export function isSystemRecord(streamName: string, type: string): boolean {
  return streamName.startsWith('$') || type.startsWith('$');
}

function parseJsonBytes(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

function dataOf(value: unknown, id: string): Record<string, unknown> {
  const parsed = value instanceof Uint8Array ? parseJsonBytes(value) : value;
  if (!isPlainObject(parsed)) {
    throw new StoreFailureError('foreign-event', `event ${id} does not hold a JSON object: it was not written through this port`);
  }
  return parsed;
}

function metadataOf(value: unknown): EventMetadata {
  const parsed = value instanceof Uint8Array ? parseJsonBytes(value) : value;
  return isPlainObject(parsed) ? (parsed as EventMetadata) : {};
}

/**
 * The port's {@link RecordedEvent} for a resolved event from the client, or
 * `undefined` for a record the port does not show (a system record, or a link
 * whose target is gone). `created` is the client's `Date` (millisecond
 * precision: the server's 100 ns ticks divided by 10 000); metadata absent or
 * not a JSON object reads as `{}`.
 *
 * @throws StoreFailureError when a product event's data is not a JSON object,
 *   or the server gave no position.
 */
export function toRecordedEvent(resolved: ClientResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (event === undefined || isSystemRecord(event.streamId, event.type)) return undefined;
  const id = event.id.toLowerCase();
  if (event.position === undefined) {
    throw new StoreFailureError('no-position', `event ${id} of '${event.streamId}' came without a position`);
  }
  return {
    streamName: event.streamId,
    id,
    type: event.type,
    revision: event.revision,
    position: fromClientPosition(event.position),
    data: dataOf(event.data, id),
    metadata: metadataOf(event.metadata),
    created: event.created,
  };
}
