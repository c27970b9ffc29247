import type { ServerDuplexStream } from '@grpc/grpc-js';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import { AllStreamPosition } from '@eventstore/db-client/generated/shared_pb';
import { BatchAppendResp } from '@eventstore/db-client/generated/streams_pb';
import type { BatchAppendReq } from '@eventstore/db-client/generated/streams_pb';
import type { Status } from '@eventstore/db-client/generated/status_pb';

import type { ExpectedRevision } from './expected-revision';
import { NO_STREAM_REVISION } from './event-log';
import { abortCall } from './open-calls';
import { isProposedEventProblem, readProposedEvent } from './proposed-event';
import { fromStreamIdentifier, toStreamIdentifier } from './read-event-message';
import type { ProposedEvent } from './recorded-event';
import {
  batchBadRequestStatus,
  batchStreamDeletedStatus,
  batchWrongExpectedVersionStatus,
  injectedFaultError,
} from './rpc-errors';
import type { ServerContext } from './server-context';
import { parseGrpcUuid } from './uuid';

type Call = ServerDuplexStream<BatchAppendReq, BatchAppendResp>;

interface PendingWrite {
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly events: ProposedEvent[];
  problem: string | undefined;
}

/**
 * `Streams.BatchAppend` (bidirectional, one long-lived call per client connection): requests
 * sharing a `correlation_id` accumulate events, the first one carrying `options`, the one with
 * `is_final` commits them. Each commit is answered by a `BatchAppendResp` with the same
 * correlation id and either `success` or an `error` (`google.rpc.Status` with packed details:
 * `WrongExpectedVersion`, `StreamDeleted`), as `Streams.BatchAppend.cs` does.
 *
 * The per-request `deadline` is accepted and ignored: writes here are instantaneous.
 */
export function createBatchAppendHandler(context: ServerContext): (call: Call) => void {
  return (call) => {
    const pending = new Map<string, PendingWrite>();
    const unregister = context.openCalls.add({ abort: (error) => abortCall(call, error) });
    const respond = (request: BatchAppendReq, streamName: string, fill: (response: BatchAppendResp) => void): void => {
      const response = new BatchAppendResp();
      const correlation = request.getCorrelationId();
      if (correlation !== undefined) response.setCorrelationId(correlation);
      response.setStreamIdentifier(toStreamIdentifier(streamName));
      fill(response);
      if (!call.writableFinished && !call.cancelled) call.write(response);
    };
    const fail = (request: BatchAppendReq, streamName: string, status: Status): void =>
      respond(request, streamName, (response) => response.setError(status));

    call.on('data', (request: BatchAppendReq) => {
      const correlationId = parseGrpcUuid(request.getCorrelationId()) ?? '';
      const options = request.getOptions();
      if (options !== undefined) {
        const streamName = fromStreamIdentifier(options.getStreamIdentifier()) ?? '';
        const expected = readBatchExpectedRevision(options);
        if (expected === undefined) {
          fail(request, streamName, batchBadRequestStatus('BatchAppendReq.options needs an expected stream position'));
          return;
        }
        pending.set(correlationId, { streamName, expected, events: [], problem: undefined });
      }
      const write = pending.get(correlationId);
      if (write === undefined) return;
      for (const message of request.getProposedMessagesList()) {
        const event = readProposedEvent(message);
        if (isProposedEventProblem(event)) {
          write.problem = 'missing' in event ? `Required Metadata Property '${event.missing}' is missing` : 'Invalid event id';
        } else write.events.push(event);
      }
      if (!request.getIsFinal()) return;
      pending.delete(correlationId);
      if (write.problem !== undefined) {
        fail(request, write.streamName, batchBadRequestStatus(write.problem));
        return;
      }
      const fault = context.faults.takeAppendFault();
      if (fault !== undefined) {
        unregister();
        void abortCall(call, injectedFaultError(fault));
        return;
      }
      const outcome = context.log.append(write.streamName, write.expected, write.events);
      switch (outcome.kind) {
        case 'stream-deleted':
          fail(request, write.streamName, batchStreamDeletedStatus(write.streamName));
          return;
        case 'wrong-expected-version':
          fail(request, write.streamName, batchWrongExpectedVersionStatus(write.expected, outcome.currentRevision));
          return;
        case 'success':
          respond(request, write.streamName, (response) => {
            const success = new BatchAppendResp.Success();
            if (outcome.currentRevision === NO_STREAM_REVISION) success.setNoStream(new ProtobufEmpty());
            else success.setCurrentRevision(outcome.currentRevision.toString(10));
            if (outcome.position === undefined) success.setNoPosition(new ProtobufEmpty());
            else {
              const position = new AllStreamPosition();
              position.setCommitPosition(outcome.position.toString(10));
              position.setPreparePosition(outcome.position.toString(10));
              success.setPosition(position);
            }
            response.setSuccess(success);
          });
      }
    });
    call.on('end', () => {
      unregister();
      if (!call.writableFinished) call.end();
    });
    call.on('cancelled', unregister);
    call.on('error', unregister);
  };
}

function readBatchExpectedRevision(options: BatchAppendReq.Options): ExpectedRevision | undefined {
  if (options.hasAny()) return { kind: 'any' };
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  if (options.hasStreamPosition()) return { kind: 'exact', revision: BigInt(options.getStreamPosition()) };
  return undefined;
}
