import { credentials, status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import {
  ANY,
  DeadlineExceededError,
  EventStoreDBClient,
  jsonEvent,
  MaxAppendSizeExceededError,
  NO_STREAM,
  StreamNotFoundError,
} from '@eventstore/db-client';
import { Empty, StreamIdentifier, UUID } from '@eventstore/db-client/generated/shared_pb';
import { StreamsClient } from '@eventstore/db-client/generated/streams_grpc_pb';
import { AppendReq } from '@eventstore/db-client/generated/streams_pb';
import type { AppendResp } from '@eventstore/db-client/generated/streams_pb';

import { DEFAULT_MAX_APPEND_SIZE } from './append-size';
import { EventLog } from './event-log';
import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { collect, disposeAll, uniqueStream, waitFor } from './int-spec-helpers';

/** An event whose `Event.SizeOnDisk` (data + 2 bytes per type character) is exactly `size`. */
const eventOfSize = (size: number, type = 'Big'): ReturnType<typeof jsonEvent> =>
  jsonEvent({ type, data: 'x'.repeat(size - type.length * 2 - 2) });

/** A plain `Append` call (the client uses `BatchAppend` whenever the server offers it). */
function rawAppend(server: EsdbTestServer, stream: string, data: Buffer, deadline?: Date): Promise<AppendResp> {
  const raw = new StreamsClient(`${server.host}:${server.port}`, credentials.createInsecure());
  return new Promise<AppendResp>((resolve, reject) => {
    const call = raw.append({ deadline: deadline ?? Infinity }, (error, reply) => (error ? reject(error) : resolve(reply)));
    const options = new AppendReq.Options();
    options.setStreamIdentifier(new StreamIdentifier().setStreamName(Buffer.from(stream)));
    options.setAny(new Empty());
    call.write(new AppendReq().setOptions(options));
    const message = new AppendReq.ProposedMessage();
    message.setId(new UUID().setString(globalThis.crypto.randomUUID()));
    message.getMetadataMap().set('type', 'Big').set('content-type', 'application/octet-stream');
    message.setData(data);
    call.write(new AppendReq().setProposedMessage(message));
    call.end();
  }).finally(() => raw.close());
}

describe('EventStoreDB test server: limits and deadlines', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    server = await startEsdbTestServer();
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterEach(() => server.clearFaults());

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  describe('maximum append size (the server default, 1 MiB)', () => {
    it('is 1 MiB, counted as data + metadata + 2 bytes per type character', () => {
      expect(DEFAULT_MAX_APPEND_SIZE).toBe(1_048_576);
    });

    it('refuses a BatchAppend past it with MaxAppendSizeExceededError, nothing written; at the limit it is accepted', async () => {
      const stream = uniqueStream('big');
      const refused = client.appendToStream(stream, eventOfSize(DEFAULT_MAX_APPEND_SIZE + 1));
      await expect(refused).rejects.toBeInstanceOf(MaxAppendSizeExceededError);
      await expect(refused).rejects.toMatchObject({ maxAppendSize: DEFAULT_MAX_APPEND_SIZE });
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
      // The sum over the events of one append counts, not each event alone.
      const half = Math.ceil(DEFAULT_MAX_APPEND_SIZE / 2) + 1;
      await expect(client.appendToStream(stream, [eventOfSize(half), eventOfSize(half)])).rejects.toBeInstanceOf(MaxAppendSizeExceededError);
      const accepted = await client.appendToStream(stream, eventOfSize(DEFAULT_MAX_APPEND_SIZE), { expectedRevision: NO_STREAM });
      expect(accepted.nextExpectedRevision).toBe(0n);
    });

    it('refuses a plain Append past it with exception maximum-append-size-exceeded', async () => {
      const stream = uniqueStream('bigraw');
      const error = (await rawAppend(server, stream, Buffer.alloc(DEFAULT_MAX_APPEND_SIZE)).catch((e: unknown) => e)) as ServiceError;
      expect(error.code).toBe(status.INVALID_ARGUMENT);
      expect(error.metadata.get('exception')).toEqual(['maximum-append-size-exceeded']);
      expect(error.metadata.get('maximum-append-size')).toEqual([String(DEFAULT_MAX_APPEND_SIZE)]);
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('takes a smaller limit from the maxAppendSize option', async () => {
      const small = await startEsdbTestServer({ maxAppendSize: 1_000 });
      const smallClient = EventStoreDBClient.connectionString(small.connectionString);
      try {
        await expect(smallClient.appendToStream(uniqueStream(), eventOfSize(1_001))).rejects.toMatchObject({ maxAppendSize: 1_000 });
        await smallClient.appendToStream(uniqueStream(), eventOfSize(1_000));
      } finally {
        await smallClient.dispose();
        await small.stop();
      }
    });
  });

  describe('deadlines set by the client', () => {
    it('a BatchAppend commit still waiting at its deadline is answered with DeadlineExceededError and not written', async () => {
      const stream = uniqueStream('slow');
      server.delayNextAppends(1, 60_000);
      const started = Date.now();
      await expect(client.appendToStream(stream, jsonEvent({ type: 'Slow', data: {} }), { deadline: 200 })).rejects.toBeInstanceOf(
        DeadlineExceededError,
      );
      expect(Date.now() - started).toBeLessThan(30_000);
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
      const next = await client.appendToStream(stream, jsonEvent({ type: 'Fast', data: {} }), { expectedRevision: NO_STREAM });
      expect(next.nextExpectedRevision).toBe(0n);
    });

    it('a plain Append whose deadline passes while it waits ends with DEADLINE_EXCEEDED and is not written', async () => {
      const stream = uniqueStream('slowraw');
      const otherOpenCalls = server.openCallCount; // the client's BatchAppend stream
      server.delayNextAppends(1, 300);
      const error = (await rawAppend(server, stream, Buffer.from('{}'), new Date(Date.now() + 100)).catch((e: unknown) => e)) as ServiceError;
      expect(error.code).toBe(status.DEADLINE_EXCEEDED);
      // While it waits, the append counts as an open call; it is done once it was refused for good.
      await waitFor(() => server.openCallCount === otherOpenCalls, 5_000, 'the delayed append to finish');
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('a slow append that beats its deadline is written', async () => {
      const stream = uniqueStream('slowok');
      server.delayNextAppends(1, 50);
      const result = await client.appendToStream(stream, jsonEvent({ type: 'Slowish', data: {} }), { deadline: 10_000 });
      expect(result.nextExpectedRevision).toBe(0n);
    });
  });

  describe('the cost of an append expecting any', () => {
    it('does not grow with the length of the stream (the idempotence check is a lookup)', () => {
      const log = new EventLog();
      const stream = 'long';
      const blank = { contentType: 'application/json', data: new Uint8Array(), customMetadata: new Uint8Array(), type: 'E' };
      const prefill = Array.from({ length: 300_000 }, () => ({ ...blank, id: globalThis.crypto.randomUUID() }));
      log.append(stream, { kind: 'any' }, prefill);
      const started = process.hrtime.bigint();
      for (let i = 0; i < 2_000; i += 1) log.append(stream, { kind: 'any' }, [{ ...blank, id: globalThis.crypto.randomUUID() }]);
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      // A scan of the 300,000 events per append takes seconds for 2,000 appends; a lookup, milliseconds.
      expect(elapsedMs).toBeLessThan(1_000);
      const retry = log.append(stream, { kind: 'any' }, [prefill[150_000] as (typeof prefill)[number]]);
      expect(retry).toMatchObject({ kind: 'success', currentRevision: 150_000n });
      expect(log.streamStatus(stream).lastRevision).toBe(301_999n);
    });

    it('keeps idempotent retries through the client: the same ids again return the original revision', async () => {
      const stream = uniqueStream('idem');
      const batch = [jsonEvent({ type: 'A', data: {} }), jsonEvent({ type: 'B', data: {} })];
      await client.appendToStream(stream, Array.from({ length: 50 }, () => jsonEvent({ type: 'Fill', data: {} })));
      const first = await client.appendToStream(stream, batch, { expectedRevision: ANY });
      await client.appendToStream(stream, jsonEvent({ type: 'After', data: {} }));
      const again = await client.appendToStream(stream, batch, { expectedRevision: ANY });
      expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect(again.position).toEqual(first.position);
      expect(await collect(client.readStream(stream))).toHaveLength(53);
    });
  });
});
