import { ReadResp } from '@eventstore/db-client/generated/persistent_pb';

import type { RecordedEvent } from './recorded-event';
import { fillRecordedEvent } from './read-event-message';
import type { UuidFormat } from './uuid';

/**
 * Builds the `persistent_subscriptions.ReadResp` carrying one delivery, as the server's
 * `ConvertToReadEvent` does: the resolved event and the link it came through (either may be
 * absent), the original event's position, and the delivery's `retry_count`.
 */
export function toPersistentReadResponse(
  event: RecordedEvent | undefined,
  link: RecordedEvent | undefined,
  retryCount: number,
  uuidFormat: UuidFormat,
): ReadResp {
  const original = link ?? event;
  const readEvent = new ReadResp.ReadEvent();
  if (event !== undefined) readEvent.setEvent(toRecordedEvent(event, uuidFormat));
  if (link !== undefined) readEvent.setLink(toRecordedEvent(link, uuidFormat));
  if (original !== undefined) readEvent.setCommitPosition(original.position.toString(10));
  readEvent.setRetryCount(retryCount);
  const response = new ReadResp();
  response.setEvent(readEvent);
  return response;
}

/** The confirmation a member receives once it joined its group; the id is `<source>::<group>`. */
export function toConfirmationResponse(subscriptionId: string): ReadResp {
  const confirmation = new ReadResp.SubscriptionConfirmation();
  confirmation.setSubscriptionId(subscriptionId);
  const response = new ReadResp();
  response.setSubscriptionConfirmation(confirmation);
  return response;
}

function toRecordedEvent(record: RecordedEvent, uuidFormat: UuidFormat): ReadResp.ReadEvent.RecordedEvent {
  return fillRecordedEvent(new ReadResp.ReadEvent.RecordedEvent(), record, uuidFormat);
}
