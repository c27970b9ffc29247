import { StreamIdentifier } from '@eventstore/db-client/generated/shared_pb';
import type { UUID } from '@eventstore/db-client/generated/shared_pb';
import { ReadResp } from '@eventstore/db-client/generated/streams_pb';

import type { ResolvedRecord } from './event-log';
import type { RecordedEvent } from './recorded-event';
import type { UuidFormat } from './uuid';
import { toGrpcUuid } from './uuid';

/** Encodes a stream name as the proto's `StreamIdentifier` (UTF-8 bytes). */
export function toStreamIdentifier(streamName: string): StreamIdentifier {
  const identifier = new StreamIdentifier();
  identifier.setStreamName(Buffer.from(streamName, 'utf8'));
  return identifier;
}

/** Decodes a `StreamIdentifier`, `undefined` when absent. */
export function fromStreamIdentifier(identifier: StreamIdentifier | undefined): string | undefined {
  return identifier === undefined ? undefined : Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
}

/**
 * Builds the `ReadResp` carrying one event, as `ResponseConverter.ConvertToReadEvent` does:
 * `metadata` holds `type`, `created` (ticks since the Unix epoch) and `content-type`; the id
 * follows the caller's UUID option; positions are set both on the record and on the wrapper.
 * With `resolved` (a read with `resolve_links`), the target goes in `event` and the link in
 * `link`; the wrapper's position stays the record's own.
 */
export function toReadEventResponse(record: RecordedEvent, uuidFormat: UuidFormat, resolved?: ResolvedRecord): ReadResp {
  const readEvent = new ReadResp.ReadEvent();
  const event = resolved === undefined ? record : resolved.event;
  if (event !== undefined) readEvent.setEvent(toRecordedEvent(event, uuidFormat));
  if (resolved?.link !== undefined) readEvent.setLink(toRecordedEvent(resolved.link, uuidFormat));
  readEvent.setCommitPosition(record.position.toString(10));
  const response = new ReadResp();
  response.setEvent(readEvent);
  return response;
}

function toRecordedEvent(record: RecordedEvent, uuidFormat: UuidFormat): ReadResp.ReadEvent.RecordedEvent {
  return fillRecordedEvent(new ReadResp.ReadEvent.RecordedEvent(), record, uuidFormat);
}

/** The `RecordedEvent` message shared in shape by `streams.ReadResp` and `persistent_subscriptions.ReadResp`. */
export interface RecordedEventMessage {
  setId(value?: UUID): unknown;
  setStreamIdentifier(value?: StreamIdentifier): unknown;
  setStreamRevision(value: string): unknown;
  setPreparePosition(value: string): unknown;
  setCommitPosition(value: string): unknown;
  getMetadataMap(): { set(key: string, value: string): unknown };
  setCustomMetadata(value: Uint8Array): unknown;
  setData(value: Uint8Array): unknown;
}

/**
 * Fills a `RecordedEvent` message as `ConvertToRecordedEvent` does: `metadata` holds `type`,
 * `created` (ticks since the Unix epoch) and `content-type`; the id follows the caller's UUID
 * option; commit and prepare positions are the record's position.
 */
export function fillRecordedEvent<T extends RecordedEventMessage>(message: T, record: RecordedEvent, uuidFormat: UuidFormat): T {
  message.setId(toGrpcUuid(record.id, uuidFormat));
  message.setStreamIdentifier(toStreamIdentifier(record.streamName));
  message.setStreamRevision(record.revision.toString(10));
  message.setPreparePosition(record.position.toString(10));
  message.setCommitPosition(record.position.toString(10));
  const metadata = message.getMetadataMap();
  metadata.set('type', record.type);
  metadata.set('created', record.created.toString(10));
  metadata.set('content-type', record.contentType === 'application/json' ? 'application/json' : 'application/octet-stream');
  message.setCustomMetadata(record.customMetadata);
  message.setData(record.data);
  return message;
}
