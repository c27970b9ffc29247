import type { AppendReq, BatchAppendReq } from '@eventstore/db-client/generated/streams_pb';

import type { ProposedEvent } from './recorded-event';
import { parseGrpcUuid } from './uuid';

/** Why a proposed message was refused: the metadata entry it lacks, or an unreadable id. */
export type ProposedEventProblem = { readonly missing: 'type' | 'content-type' } | { readonly invalidId: true };

/**
 * Reads an `Append`/`BatchAppend` proposed message. The real server requires the `type` and
 * `content-type` metadata entries and stores nothing else from the map.
 */
export function readProposedEvent(
  message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage,
): ProposedEvent | ProposedEventProblem {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  if (type === undefined) return { missing: 'type' };
  const contentType = metadata.get('content-type');
  if (contentType === undefined) return { missing: 'content-type' };
  const id = parseGrpcUuid(message.getId());
  if (id === undefined) return { invalidId: true };
  return {
    id,
    type,
    contentType,
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

/** Type guard for {@link readProposedEvent} failures. */
export function isProposedEventProblem(value: ProposedEvent | ProposedEventProblem): value is ProposedEventProblem {
  return 'missing' in value || 'invalidId' in value;
}
