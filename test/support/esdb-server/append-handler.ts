import type { ServerReadableStream, sendUnaryData } from '@grpc/grpc-js';
import { Empty } from '@eventstore/db-client/generated/shared_pb';
import { AppendResp } from '@eventstore/db-client/generated/streams_pb';
import type { AppendReq } from '@eventstore/db-client/generated/streams_pb';

import type { ExpectedRevision } from './expected-revision';
import { readExpectedRevision } from './expected-revision';
import { NO_STREAM_REVISION } from './event-log';
import type { WriteOutcome } from './event-log';
import { isProposedEventProblem, readProposedEvent } from './proposed-event';
import { fromStreamIdentifier } from './read-event-message';
import type { ProposedEvent } from './recorded-event';
import { appendSizeOf } from './append-size';
import {
  deadlineExceededError,
  injectedFaultError,
  invalidArgumentError,
  maxAppendSizeExceededError,
  requiredMetadataMissingError,
  streamDeletedError,
} from './rpc-errors';
import type { ServerContext } from './server-context';

/**
 * `Streams.Append` (client streaming): an `options` message, then one `proposed_message` per
 * event. A wrong expected version is a normal `AppendResp` with `wrong_expected_version` set,
 * not a gRPC error; a tombstoned stream is a `stream-deleted` error; an append whose events
 * add up to more than the maximum append size is refused as soon as it does
 * (`maximum-append-size-exceeded`), nothing written.
 */
export function createAppendHandler(
  context: ServerContext,
): (call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>) => void {
  return (call, callback) => {
    let streamName: string | undefined;
    let expected: ExpectedRevision | undefined;
    const events: ProposedEvent[] = [];
    let size = 0;
    let failed = false;
    const fail = (error: Parameters<typeof callback>[0]): void => {
      if (failed) return;
      failed = true;
      callback(error);
    };
    call.on('data', (request: AppendReq) => {
      if (failed) return;
      const options = request.getOptions();
      if (request.hasOptions() && options !== undefined) {
        streamName = fromStreamIdentifier(options.getStreamIdentifier());
        expected = readExpectedRevision(options);
        return;
      }
      const message = request.getProposedMessage();
      if (streamName === undefined || message === undefined) {
        fail(invalidArgumentError('The first AppendReq must carry options'));
        return;
      }
      const event = readProposedEvent(message);
      if (isProposedEventProblem(event)) {
        fail('missing' in event ? requiredMetadataMissingError(event.missing) : invalidArgumentError('Invalid event id'));
        return;
      }
      size += appendSizeOf(event);
      if (size > context.maxAppendSize) {
        fail(maxAppendSizeExceededError(context.maxAppendSize));
        return;
      }
      events.push(event);
    });
    call.on('error', () => {
      failed = true;
    });
    call.on('end', () => {
      const delayMs = context.faults.takeAppendDelay();
      if (delayMs === 0) return commit();
      // While it waits, the append is an open call: a server stop ends it unwritten.
      const timer = setTimeout(() => {
        unregister();
        commit();
      }, delayMs);
      const unregister = context.openCalls.add({
        abort: (error) => {
          clearTimeout(timer);
          fail(error);
          return Promise.resolve();
        },
      });
    });
    const commit = (): void => {
      if (failed) return;
      // A deadline that passed during a delay: grpc-js has already ended the call with
      // DEADLINE_EXCEEDED, and nothing may be written.
      if (call.cancelled || deadlinePassed(call.getDeadline())) {
        fail(deadlineExceededError());
        return;
      }
      if (streamName === undefined || expected === undefined) {
        fail(invalidArgumentError('AppendReq.options with a stream and an expected revision is required'));
        return;
      }
      const fault = context.faults.takeAppendFault();
      if (fault !== undefined) {
        fail(injectedFaultError(fault));
        return;
      }
      const outcome = context.log.append(streamName, expected, events);
      if (outcome.kind === 'stream-deleted') {
        fail(streamDeletedError(streamName));
        return;
      }
      if (outcome.kind === 'wrong-expected-version') context.conflicts.record(streamName, events);
      callback(null, toAppendResp(outcome, expected));
    };
  };
}

function deadlinePassed(deadline: Date | number): boolean {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) && at <= Date.now();
}

function toAppendResp(outcome: Exclude<WriteOutcome, { kind: 'stream-deleted' }>, expected: ExpectedRevision): AppendResp {
  const response = new AppendResp();
  if (outcome.kind === 'success') {
    const success = new AppendResp.Success();
    if (outcome.currentRevision === NO_STREAM_REVISION) success.setNoStream(new Empty());
    else success.setCurrentRevision(outcome.currentRevision.toString(10));
    if (outcome.position === undefined) success.setNoPosition(new Empty());
    else {
      const position = new AppendResp.Position();
      position.setCommitPosition(outcome.position.toString(10));
      position.setPreparePosition(outcome.position.toString(10));
      success.setPosition(position);
    }
    response.setSuccess(success);
    return response;
  }
  const wrong = new AppendResp.WrongExpectedVersion();
  if (outcome.currentRevision === NO_STREAM_REVISION) wrong.setCurrentNoStream(new Empty());
  else wrong.setCurrentRevision(outcome.currentRevision.toString(10));
  switch (expected.kind) {
    case 'any':
      wrong.setExpectedAny(new Empty());
      break;
    case 'no_stream':
      wrong.setExpectedNoStream(new Empty());
      break;
    case 'stream_exists':
      wrong.setExpectedStreamExists(new Empty());
      break;
    case 'exact':
      wrong.setExpectedRevision(expected.revision.toString(10));
      break;
  }
  response.setWrongExpectedVersion(wrong);
  return response;
}
