import { Metadata, status } from '@grpc/grpc-js';
import type { ServerErrorResponse } from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import {
  MaximumAppendSizeExceeded,
  StreamDeleted,
  StreamIdentifier,
  Timeout,
  WrongExpectedVersion,
} from '@eventstore/db-client/generated/shared_pb';
import { Status } from '@eventstore/db-client/generated/status_pb';
import type { Code } from '@eventstore/db-client/generated/code_pb';

import type { ExpectedRevision } from './expected-revision';
import { NO_STREAM_REVISION } from './event-log';

/**
 * gRPC errors in the shape EventStoreDB's `RpcExceptions` produces: a status code plus an
 * `exception` trailer the client maps to a typed error (`convertToCommandError`).
 */
function exception(code: status, details: string, entries: Record<string, string>): ServerErrorResponse {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return Object.assign(new Error(details), { code, details, metadata });
}

/** `RpcExceptions.StreamDeleted`: FAILED_PRECONDITION, `exception: stream-deleted`, `stream-name`. */
export function streamDeletedError(streamName: string): ServerErrorResponse {
  return exception(status.FAILED_PRECONDITION, `Event stream '${streamName}' is deleted.`, {
    exception: 'stream-deleted',
    'stream-name': streamName,
  });
}

/**
 * `RpcExceptions.WrongExpectedVersion` as Delete and Tombstone raise it (Append answers with an
 * `AppendResp.wrong_expected_version` message instead).
 */
export function wrongExpectedVersionError(
  operation: string,
  streamName: string,
  expected: ExpectedRevision,
  currentRevision: bigint,
): ServerErrorResponse {
  const expectedVersion = legacyExpectedVersion(expected);
  const actual = currentRevision === NO_STREAM_REVISION ? '' : currentRevision.toString(10);
  return exception(
    status.FAILED_PRECONDITION,
    `${operation} failed due to WrongExpectedVersion. Stream: ${streamName}, Expected version: ${expectedVersion}, Actual version: ${actual}`,
    {
      exception: 'wrong-expected-version',
      'stream-name': streamName,
      'expected-version': expectedVersion,
      'actual-version': actual,
    },
  );
}

/** `RpcExceptions.RequiredMetadataPropertyMissing`: an event without `type` or `content-type`. */
export function requiredMetadataMissingError(property: string): ServerErrorResponse {
  return exception(status.INVALID_ARGUMENT, `Required Metadata Property '${property}' is missing`, {
    exception: 'missing-required-metadata-property',
    'required-metadata-properties': 'type,content-type',
  });
}

/** `RpcExceptions.MaxAppendSizeExceeded`: INVALID_ARGUMENT, `maximum-append-size`. */
export function maxAppendSizeExceededError(maxAppendSize: number): ServerErrorResponse {
  return exception(status.INVALID_ARGUMENT, `Maximum Append Size of ${maxAppendSize} Exceeded.`, {
    exception: 'maximum-append-size-exceeded',
    'maximum-append-size': String(maxAppendSize),
  });
}

/** A malformed request (the real server throws `RpcExceptions.InvalidArgument` or `InvalidOperationException`). */
export function invalidArgumentError(details: string): ServerErrorResponse {
  return exception(status.INVALID_ARGUMENT, details, {});
}

/** What every open call receives when the server stops: the connection is going away. */
export function serverShuttingDownError(): ServerErrorResponse {
  return exception(status.UNAVAILABLE, 'Server is shutting down', {});
}

/** An injected fault (see `FaultInjector`). */
export function injectedFaultError(code: status): ServerErrorResponse {
  return exception(code, `Injected fault (status ${code})`, {});
}

/**
 * `Google.Rpc.Status.WrongExpectedVersion` of `BatchAppend`: ALREADY_EXISTS with a packed
 * `event_store.client.WrongExpectedVersion`.
 */
export function batchWrongExpectedVersionStatus(expected: ExpectedRevision, currentRevision: bigint): Status {
  const details = new WrongExpectedVersion();
  if (currentRevision === NO_STREAM_REVISION) details.setCurrentNoStream(new ProtobufEmpty());
  else details.setCurrentStreamRevision(currentRevision.toString(10));
  switch (expected.kind) {
    case 'any':
      details.setExpectedAny(new ProtobufEmpty());
      break;
    case 'no_stream':
      details.setExpectedNoStream(new ProtobufEmpty());
      break;
    case 'stream_exists':
      details.setExpectedStreamExists(new ProtobufEmpty());
      break;
    case 'exact':
      details.setExpectedStreamPosition(expected.revision.toString(10));
      break;
  }
  return packedStatus(status.ALREADY_EXISTS, 'WrongExpectedVersion', details.serializeBinary(), 'event_store.client.WrongExpectedVersion');
}

/** `Google.Rpc.Status.StreamDeleted` of `BatchAppend`: NOT_FOUND with a packed `StreamDeleted`. */
export function batchStreamDeletedStatus(streamName: string): Status {
  const identifier = new StreamIdentifier();
  identifier.setStreamName(Buffer.from(streamName, 'utf8'));
  const details = new StreamDeleted();
  details.setStreamIdentifier(identifier);
  return packedStatus(status.NOT_FOUND, 'StreamDeleted', details.serializeBinary(), 'event_store.client.StreamDeleted');
}

/** `Google.Rpc.Status.MaximumAppendSizeExceeded` of `BatchAppend`: INVALID_ARGUMENT with a packed `MaximumAppendSizeExceeded`. */
export function batchMaximumAppendSizeExceededStatus(maxAppendSize: number): Status {
  const details = new MaximumAppendSizeExceeded();
  details.setMaxappendsize(maxAppendSize);
  return packedStatus(status.INVALID_ARGUMENT, 'MaximumAppendSizeExceeded', details.serializeBinary(), 'event_store.client.MaximumAppendSizeExceeded');
}

/** `Google.Rpc.Status.Timeout` of `BatchAppend`: DEADLINE_EXCEEDED with a packed `Timeout` (the request's deadline passed). */
export function batchTimeoutStatus(): Status {
  return packedStatus(status.DEADLINE_EXCEEDED, 'Timeout', new Timeout().serializeBinary(), 'event_store.client.Timeout');
}

/** What a call whose deadline passed ends with. */
export function deadlineExceededError(): ServerErrorResponse {
  return exception(status.DEADLINE_EXCEEDED, 'Deadline Exceeded', {});
}

/** `Google.Rpc.Status.BadRequest` of `BatchAppend`. */
export function batchBadRequestStatus(message: string): Status {
  const result = new Status();
  result.setCode(toRpcCode(status.INVALID_ARGUMENT));
  result.setMessage(message);
  return result;
}

function packedStatus(code: status, message: string, details: Uint8Array, typeName: string): Status {
  const any = new Any();
  any.pack(details, typeName);
  const result = new Status();
  result.setCode(toRpcCode(code));
  result.setMessage(message);
  result.setDetails(any);
  return result;
}

/** The `long` expected version of the legacy API: -2 any, -1 no stream, -4 stream exists. */
function legacyExpectedVersion(expected: ExpectedRevision): string {
  switch (expected.kind) {
    case 'any':
      return '-2';
    case 'no_stream':
      return '-1';
    case 'stream_exists':
      return '-4';
    case 'exact':
      return expected.revision.toString(10);
  }
}

/** gRPC status codes and `google.rpc.Code` share their numbering. */
function toRpcCode(code: status): Code {
  return code as number as Code;
}

/** `RpcExceptions.PersistentSubscriptionFailed`: INTERNAL, with the reason. */
export function persistentSubscriptionFailedError(streamName: string, groupName: string, reason: string): ServerErrorResponse {
  return exception(status.INTERNAL, `Subscription group ${groupName} on stream ${streamName} failed: '${reason}'`, {
    exception: 'persistent-subscription-failed',
    'stream-name': streamName,
    'group-name': groupName,
    reason,
  });
}

/** `RpcExceptions.PersistentSubscriptionDoesNotExist`: NOT_FOUND. */
export function persistentSubscriptionDoesNotExistError(streamName: string, groupName: string): ServerErrorResponse {
  return exception(status.NOT_FOUND, `Subscription group ${groupName} on stream ${streamName} does not exist.`, {
    exception: 'persistent-subscription-does-not-exist',
    'stream-name': streamName,
    'group-name': groupName,
  });
}

/** `RpcExceptions.PersistentSubscriptionExists`: ALREADY_EXISTS. */
export function persistentSubscriptionExistsError(streamName: string, groupName: string): ServerErrorResponse {
  return exception(status.ALREADY_EXISTS, `Subscription group ${groupName} on stream ${streamName} exists.`, {
    exception: 'persistent-subscription-exists',
    'stream-name': streamName,
    'group-name': groupName,
  });
}

/** `RpcExceptions.PersistentSubscriptionMaximumSubscribersReached`: FAILED_PRECONDITION. */
export function maximumSubscribersReachedError(streamName: string, groupName: string): ServerErrorResponse {
  return exception(status.FAILED_PRECONDITION, `Maximum subscriptions reached for subscription group ${groupName} on stream ${streamName}.`, {
    exception: 'maximum-subscribers-reached',
    'stream-name': streamName,
    'group-name': groupName,
  });
}

/** `RpcExceptions.PersistentSubscriptionDropped`: CANCELLED (a group updated or the subsystem restarted). */
export function persistentSubscriptionDroppedError(streamName: string, groupName: string): ServerErrorResponse {
  return exception(status.CANCELLED, `Subscription group ${groupName} on stream ${streamName} was dropped.`, {
    exception: 'persistent-subscription-dropped',
    'stream-name': streamName,
    'group-name': groupName,
  });
}
