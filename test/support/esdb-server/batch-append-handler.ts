import type { ServerDuplexStream } from '@grpc/grpc-js';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import { AllStreamPosition } from '@eventstore/db-client/generated/shared_pb';
import { BatchAppendResp } from '@eventstore/db-client/generated/streams_pb';
import type { BatchAppendReq } from '@eventstore/db-client/generated/streams_pb';
import type { Status } from '@eventstore/db-client/generated/status_pb';

import type { ExpectedRevision } from './expected-revision';
import { NO_STREAM_REVISION } from './event-log';
import { appendSizeOf } from './append-size';
import { abortCall } from './open-calls';
import { isProposedEventProblem, readProposedEvent } from './proposed-event';
import { fromStreamIdentifier, toStreamIdentifier } from './read-event-message';
import type { ProposedEvent } from './recorded-event';
import {
  batchBadRequestStatus,
  batchMaximumAppendSizeExceededStatus,
  batchStreamDeletedStatus,
  batchTimeoutStatus,
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
  /** The request's `deadline` (ms since the epoch), when the client sent one. */
  readonly deadline: number | undefined;
  size: number;
  problem: string | undefined;
}

/**
 * `Streams.BatchAppend` (bidirectional, one long-lived call per client connection): requests
 * sharing a `correlation_id` accumulate events, the first one carrying `options`, the one with
 * `is_final` commits them. Each commit is answered by a `BatchAppendResp` with the same
 * correlation id and either `success` or an `error` (`google.rpc.Status` with packed details:
 * `WrongExpectedVersion`, `StreamDeleted`, `MaximumAppendSizeExceeded` as soon as the events
 * of a correlation id exceed the maximum append size), as `Streams.BatchAppend.cs` does.
 *
 * The per-request `deadline` is honoured: a commit still waiting when it passes (see
 * `FaultInjector.delayNextAppends`) is answered with the server's `Timeout` status, unwritten.
 */
export function createBatchAppendHandler(context: ServerContext): (call: Call) => void {
  return (call) => {
    const pending = new Map<string, PendingWrite>();
    let stopped = false;
    const unregister = context.openCalls.add({
      abort: (error) => {
        stopped = true; // a commit still waiting (delayNextAppends) must not write on a stopped server
        return abortCall(call, error);
      },
    });
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
        const deadline = options.getDeadline()?.toDate().getTime();
        pending.set(correlationId, { streamName, expected, events: [], deadline, size: 0, problem: undefined });
      }
      const write = pending.get(correlationId);
      if (write === undefined) return;
      for (const message of request.getProposedMessagesList()) {
        const event = readProposedEvent(message);
        if (isProposedEventProblem(event)) {
          write.problem = 'missing' in event ? `Required Metadata Property '${event.missing}' is missing` : 'Invalid event id';
        } else {
          write.events.push(event);
          write.size += appendSizeOf(event);
        }
      }
      if (write.size > context.maxAppendSize) {
        // As the server: answered at once, the rest of the request (same correlation id) ignored.
        pending.delete(correlationId);
        fail(request, write.streamName, batchMaximumAppendSizeExceededStatus(context.maxAppendSize));
        return;
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
      const delayMs = context.faults.takeAppendDelay();
      if (delayMs === 0) {
        commit(request, write);
        return;
      }
      // A slow commit: whichever comes first, the end of the delay (write) or the request's
      // deadline (Timeout, nothing written; a real node might still write it later).
      const timers: NodeJS.Timeout[] = [];
      let settled = false;
      const settle = (action: () => void) => (): void => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        unregisterCommit();
        action();
      };
      // A waiting commit is an open call of its own: a server stop drops it unwritten.
      const unregisterCommit = context.openCalls.add({
        abort: () => {
          settle(() => undefined)();
          return Promise.resolve();
        },
      });
      timers.push(setTimeout(settle(() => commit(request, write)), delayMs));
      if (write.deadline !== undefined) {
        timers.push(setTimeout(settle(() => fail(request, write.streamName, batchTimeoutStatus())), Math.max(0, write.deadline - Date.now())));
      }
    });
    const commit = (request: BatchAppendReq, write: PendingWrite): void => {
      if (stopped || call.cancelled || call.writableFinished) return;
      if (write.deadline !== undefined && write.deadline <= Date.now()) {
        fail(request, write.streamName, batchTimeoutStatus());
        return;
      }
      const outcome = context.log.append(write.streamName, write.expected, write.events);
      switch (outcome.kind) {
        case 'stream-deleted':
          fail(request, write.streamName, batchStreamDeletedStatus(write.streamName));
          return;
        case 'wrong-expected-version':
          context.conflicts.record(write.streamName, write.events);
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
    };
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
