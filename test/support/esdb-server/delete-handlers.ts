import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { DeleteResp, TombstoneResp } from '@eventstore/db-client/generated/streams_pb';
import type { DeleteReq, TombstoneReq } from '@eventstore/db-client/generated/streams_pb';

import { readExpectedRevision } from './expected-revision';
import { fromStreamIdentifier } from './read-event-message';
import { invalidArgumentError, streamDeletedError, wrongExpectedVersionError } from './rpc-errors';
import type { ServerContext } from './server-context';

/**
 * `Streams.Delete` (soft delete). Unlike `Append`, a wrong expected version here is a gRPC
 * error with `exception: wrong-expected-version`, as `RpcExceptions.WrongExpectedVersion`.
 */
export function createDeleteHandler(
  context: ServerContext,
): (call: ServerUnaryCall<DeleteReq, DeleteResp>, callback: sendUnaryData<DeleteResp>) => void {
  return (call, callback) => {
    const options = call.request.getOptions();
    const streamName = fromStreamIdentifier(options?.getStreamIdentifier());
    const expected = options === undefined ? undefined : readExpectedRevision(options);
    if (streamName === undefined || expected === undefined) {
      callback(invalidArgumentError('DeleteReq.options with a stream and an expected revision is required'));
      return;
    }
    const outcome = context.log.softDelete(streamName, expected);
    if (outcome.kind === 'stream-deleted') return callback(streamDeletedError(streamName));
    if (outcome.kind === 'wrong-expected-version') {
      return callback(wrongExpectedVersionError('Delete', streamName, expected, outcome.currentRevision));
    }
    const response = new DeleteResp();
    if (outcome.position !== undefined) {
      const position = new DeleteResp.Position();
      position.setCommitPosition(outcome.position.toString(10));
      position.setPreparePosition(outcome.position.toString(10));
      response.setPosition(position);
    }
    callback(null, response);
  };
}

/** `Streams.Tombstone` (hard delete), with the same error forms as {@link createDeleteHandler}. */
export function createTombstoneHandler(
  context: ServerContext,
): (call: ServerUnaryCall<TombstoneReq, TombstoneResp>, callback: sendUnaryData<TombstoneResp>) => void {
  return (call, callback) => {
    const options = call.request.getOptions();
    const streamName = fromStreamIdentifier(options?.getStreamIdentifier());
    const expected = options === undefined ? undefined : readExpectedRevision(options);
    if (streamName === undefined || expected === undefined) {
      callback(invalidArgumentError('TombstoneReq.options with a stream and an expected revision is required'));
      return;
    }
    const outcome = context.log.tombstone(streamName, expected);
    if (outcome.kind === 'stream-deleted') return callback(streamDeletedError(streamName));
    if (outcome.kind === 'wrong-expected-version') {
      return callback(wrongExpectedVersionError('Tombstone', streamName, expected, outcome.currentRevision));
    }
    const response = new TombstoneResp();
    if (outcome.position !== undefined) {
      const position = new TombstoneResp.Position();
      position.setCommitPosition(outcome.position.toString(10));
      position.setPreparePosition(outcome.position.toString(10));
      response.setPosition(position);
    }
    callback(null, response);
  };
}
