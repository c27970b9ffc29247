import type { ProposedEvent } from './recorded-event';

/** The real server's default `MaxAppendSize`: 1 MiB per append (one `Append` call or one `BatchAppend` commit). */
export const DEFAULT_MAX_APPEND_SIZE = 1_048_576;

/**
 * What an event counts towards the maximum append size, as the server's `Event.SizeOnDisk`:
 * data and metadata bytes, plus the event type in UTF-16 (2 bytes a character).
 */
export function appendSizeOf(event: ProposedEvent): number {
  return event.data.length + event.customMetadata.length + event.type.length * 2;
}
