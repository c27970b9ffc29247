import type { ServerWritableStream } from '@grpc/grpc-js';
import { ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { ReadReq } from '@eventstore/db-client/generated/streams_pb';

import { CatchUpSubscription, DEFAULT_MAX_SEARCH_WINDOW } from './catch-up-subscription';
import type { SubscriptionTarget } from './catch-up-subscription';
import { eventFilterFromProto, isInvalidFilter } from './event-filter';
import type { EventFilter } from './event-filter';
import type { ReadFrom, ReadOptions, ResolvedRecord } from './event-log';
import { abortCall } from './open-calls';
import { fromStreamIdentifier, toReadEventResponse, toStreamIdentifier } from './read-event-message';
import type { RecordedEvent } from './recorded-event';
import { invalidArgumentError, streamDeletedError } from './rpc-errors';
import type { ServerContext } from './server-context';
import type { UuidFormat } from './uuid';

type Call = ServerWritableStream<ReadReq, ReadResp>;

/**
 * `Streams.Read`: reads of a stream or of `$all` (forwards or backwards, with a count, `$all`
 * optionally filtered) and catch-up subscriptions (when `subscription` is set instead of
 * `count`). A missing stream is a `stream_not_found` message, a tombstoned one a
 * `stream-deleted` error, as on the real server.
 */
export function createReadHandler(context: ServerContext): (call: Call) => void {
  return (call) => {
    const options = call.request.getOptions();
    if (options === undefined) {
      void abortCall(call, invalidArgumentError('ReadReq.options is required'));
      return;
    }
    const uuidFormat: UuidFormat = options.getUuidOption()?.hasStructured() === true ? 'structured' : 'string';
    let filter: EventFilter | undefined;
    const filterOptions = options.getFilter();
    if (options.hasFilter() && filterOptions !== undefined) {
      const built = eventFilterFromProto(filterOptions);
      if (isInvalidFilter(built)) {
        void abortCall(call, invalidArgumentError(built.invalid));
        return;
      }
      filter = built;
    }
    const backwards = options.getReadDirection() === 1;
    const resolve = options.getResolveLinks() ? (record: RecordedEvent): ResolvedRecord => context.log.resolve(record) : undefined;
    if (options.hasSubscription()) {
      if (backwards) {
        void abortCall(call, invalidArgumentError('The combination of a subscription and a backwards read is invalid.'));
        return;
      }
      const target = subscriptionTarget(options, filter);
      if (target === undefined) {
        void abortCall(call, invalidArgumentError('ReadReq.options needs a stream or all option'));
        return;
      }
      new CatchUpSubscription(context.log, call, target, uuidFormat, context.openCalls, options.getResolveLinks()).start();
      return;
    }
    const readOptions = (from: ReadFrom): ReadOptions => ({
      direction: backwards ? 'backwards' : 'forwards',
      from,
      maxCount: BigInt(options.getCount() || '0'),
    });
    const stream = options.getStream();
    if (options.hasStream() && stream !== undefined) {
      if (filter !== undefined) {
        void abortCall(call, invalidArgumentError('A filter can only be used when reading $all.'));
        return;
      }
      const streamName = fromStreamIdentifier(stream.getStreamIdentifier()) ?? '';
      const from: ReadFrom = stream.hasRevision() ? BigInt(stream.getRevision()) : stream.hasEnd() ? 'end' : 'start';
      const outcome = context.log.readStream(streamName, readOptions(from));
      if (outcome.kind === 'stream-deleted') {
        void abortCall(call, streamDeletedError(streamName));
        return;
      }
      if (outcome.kind === 'stream-not-found') {
        const notFound = new ReadResp.StreamNotFound();
        notFound.setStreamIdentifier(toStreamIdentifier(streamName));
        const response = new ReadResp();
        response.setStreamNotFound(notFound);
        void writeAllThenEnd(call, [response]);
        return;
      }
      void writeEvents(call, outcome.events, uuidFormat, resolve);
      return;
    }
    const all = options.getAll();
    const position = all?.getPosition();
    const from: ReadFrom = position !== undefined ? BigInt(position.getCommitPosition()) : all?.hasEnd() === true ? 'end' : 'start';
    void writeEvents(call, context.log.readAll(readOptions(from), filter), uuidFormat, resolve);
  };
}

function subscriptionTarget(options: ReadReq.Options, filter: EventFilter | undefined): SubscriptionTarget | undefined {
  const stream = options.getStream();
  if (options.hasStream() && stream !== undefined) {
    const streamName = fromStreamIdentifier(stream.getStreamIdentifier()) ?? '';
    const from = stream.hasRevision() ? BigInt(stream.getRevision()) : stream.hasEnd() ? 'end' : 'start';
    return { kind: 'stream', streamName, from };
  }
  const all = options.getAll();
  if (!options.hasAll() || all === undefined) return undefined;
  const position = all.getPosition();
  const from = position !== undefined ? BigInt(position.getCommitPosition()) : all.hasEnd() ? 'end' : 'start';
  const filterOptions = options.getFilter();
  const window = filterOptions?.hasMax() === true ? filterOptions.getMax() : DEFAULT_MAX_SEARCH_WINDOW;
  const multiplier = Math.max(1, filterOptions?.getCheckpointintervalmultiplier() ?? 1);
  return { kind: 'all', from, filter, checkpointInterval: window * multiplier };
}

function writeEvents(
  call: Call,
  events: readonly RecordedEvent[],
  uuidFormat: UuidFormat,
  resolve: ((record: RecordedEvent) => ResolvedRecord) | undefined,
): Promise<void> {
  return writeAllThenEnd(
    call,
    events.map((event) => toReadEventResponse(event, uuidFormat, resolve?.(event))),
  );
}

async function writeAllThenEnd(call: Call, responses: readonly ReadResp[]): Promise<void> {
  for (const response of responses) {
    if (call.cancelled || call.writableFinished) return;
    if (!call.write(response)) {
      // Whichever comes first; the other listener is removed, or a long read would pile them up.
      await new Promise<void>((resolve) => {
        const done = () => {
          call.off('drain', done);
          call.off('cancelled', done);
          resolve();
        };
        call.once('drain', done);
        call.once('cancelled', done);
      });
    }
  }
  if (!call.cancelled && !call.writableFinished) call.end();
}
