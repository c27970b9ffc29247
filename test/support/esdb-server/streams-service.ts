import type { IStreamsServer } from '@eventstore/db-client/generated/streams_grpc_pb';

import { createAppendHandler } from './append-handler';
import { createBatchAppendHandler } from './batch-append-handler';
import { createDeleteHandler, createTombstoneHandler } from './delete-handlers';
import { createReadHandler } from './read-handler';
import type { ServerContext } from './server-context';

/** The `event_store.client.streams.Streams` service: Read, Append, BatchAppend, Delete, Tombstone. */
export function createStreamsService(context: ServerContext): IStreamsServer {
  return {
    read: createReadHandler(context),
    append: createAppendHandler(context),
    batchAppend: createBatchAppendHandler(context),
    delete: createDeleteHandler(context),
    tombstone: createTombstoneHandler(context),
  };
}
