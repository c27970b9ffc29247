import { EventEmitter } from 'node:events';
import { credentials } from '@grpc/grpc-js';
import type { ClientReadableStream } from '@grpc/grpc-js';
import { BACKWARDS, binaryEvent, END, EventStoreDBClient, FORWARDS, jsonEvent, START, StreamNotFoundError } from '@eventstore/db-client';
import { Empty, StreamIdentifier } from '@eventstore/db-client/generated/shared_pb';
import { StreamsClient } from '@eventstore/db-client/generated/streams_grpc_pb';
import { ReadReq } from '@eventstore/db-client/generated/streams_pb';
import type { ReadResp } from '@eventstore/db-client/generated/streams_pb';

import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { collect, disposeAll, record, uniqueStream, waitFor } from './int-spec-helpers';

const numbered = (count: number): ReturnType<typeof jsonEvent>[] =>
  Array.from({ length: count }, (_, n) => jsonEvent({ type: `E${n}`, data: { n } }));

describe('EventStoreDB test server: reads', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    server = await startEsdbTestServer();
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  const revisions = async (...args: Parameters<EventStoreDBClient['readStream']>): Promise<bigint[]> =>
    (await collect(client.readStream(...args))).map((e) => e.event?.revision ?? -1n);

  it('reads a stream forwards from the start, from a revision (inclusive) and with maxCount', async () => {
    const stream = uniqueStream();
    await client.appendToStream(stream, numbered(5));
    expect(await revisions(stream)).toEqual([0n, 1n, 2n, 3n, 4n]);
    expect(await revisions(stream, { fromRevision: 2n })).toEqual([2n, 3n, 4n]);
    expect(await revisions(stream, { fromRevision: START, maxCount: 2 })).toEqual([0n, 1n]);
    expect(await revisions(stream, { fromRevision: END, direction: FORWARDS })).toEqual([]);
    expect(await revisions(stream, { fromRevision: 9n })).toEqual([]);
  });

  it('reads a stream backwards from the end or from a revision (inclusive)', async () => {
    const stream = uniqueStream();
    await client.appendToStream(stream, numbered(4));
    expect(await revisions(stream, { direction: BACKWARDS, fromRevision: END })).toEqual([3n, 2n, 1n, 0n]);
    expect(await revisions(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })).toEqual([3n]);
    expect(await revisions(stream, { direction: BACKWARDS, fromRevision: 1n })).toEqual([1n, 0n]);
  });

  it('rejects a read of a stream that does not exist with StreamNotFoundError naming the stream', async () => {
    const stream = uniqueStream('missing');
    const read = collect(client.readStream(stream));
    await expect(read).rejects.toBeInstanceOf(StreamNotFoundError);
    await expect(read).rejects.toMatchObject({ streamName: stream });
  });

  it('sends stream_not_found as a ReadResp message, not as a gRPC error', async () => {
    const raw = new StreamsClient(`${server.host}:${server.port}`, credentials.createInsecure());
    try {
      const options = new ReadReq.Options();
      const streamOptions = new ReadReq.Options.StreamOptions();
      streamOptions.setStreamIdentifier(new StreamIdentifier().setStreamName(Buffer.from(uniqueStream('missing'))));
      streamOptions.setStart(new Empty());
      options.setStream(streamOptions).setCount('10').setNoFilter(new Empty());
      options.setUuidOption(new ReadReq.Options.UUIDOption().setString(new Empty()));
      const responses = await drain(raw.read(new ReadReq().setOptions(options)));
      expect(responses.map((r) => r.getContentCase())).toEqual([4 /* STREAM_NOT_FOUND */]);
    } finally {
      raw.close();
    }
  });

  it('returns structured UUIDs when asked and string ones otherwise, for the same id', async () => {
    const stream = uniqueStream();
    const sent = jsonEvent({ type: 'X', data: {} });
    await client.appendToStream(stream, sent);
    const raw = new StreamsClient(`${server.host}:${server.port}`, credentials.createInsecure());
    try {
      const read = async (structured: boolean): Promise<ReadResp> => {
        const options = new ReadReq.Options();
        const streamOptions = new ReadReq.Options.StreamOptions();
        streamOptions.setStreamIdentifier(new StreamIdentifier().setStreamName(Buffer.from(stream)));
        streamOptions.setStart(new Empty());
        options.setStream(streamOptions).setCount('1').setNoFilter(new Empty());
        const uuidOption = new ReadReq.Options.UUIDOption();
        if (structured) uuidOption.setStructured(new Empty());
        else uuidOption.setString(new Empty());
        options.setUuidOption(uuidOption);
        const [first] = await drain(raw.read(new ReadReq().setOptions(options)));
        if (first === undefined) throw new Error('no response');
        return first;
      };
      const asString = (await read(false)).getEvent()?.getEvent()?.getId();
      expect(asString?.getString()).toBe(sent.id);
      const structured = (await read(true)).getEvent()?.getEvent()?.getId()?.getStructured();
      const hex = sent.id.replace(/-/g, '');
      expect(BigInt.asUintN(64, BigInt(structured?.getMostSignificantBits() ?? '0'))).toBe(BigInt(`0x${hex.slice(0, 16)}`));
      expect(BigInt.asUintN(64, BigInt(structured?.getLeastSignificantBits() ?? '0'))).toBe(BigInt(`0x${hex.slice(16)}`));
    } finally {
      raw.close();
    }
  });

  it('reads $all forwards in write order, from a position inclusively, and backwards before a position', async () => {
    const a = uniqueStream('all');
    const b = uniqueStream('all');
    await client.appendToStream(a, numbered(2));
    const middle = await client.appendToStream(b, numbered(1));
    await client.appendToStream(a, numbered(1));
    const everything = await collect(client.readAll());
    const ours = everything.filter((e) => e.event?.streamId === a || e.event?.streamId === b);
    expect(ours.map((e) => `${e.event?.streamId}@${e.event?.revision}`)).toEqual([`${a}@0`, `${a}@1`, `${b}@0`, `${a}@2`]);
    const positions = everything.map((e) => e.event?.position?.commit ?? -1n);
    expect(positions.every((p, i) => i === 0 || p > (positions[i - 1] ?? -1n))).toBe(true);
    const fromMiddle = await collect(client.readAll({ fromPosition: middle.position ?? START }));
    expect(fromMiddle.map((e) => e.event?.streamId)).toEqual([b, a]);
    const beforeMiddle = await collect(client.readAll({ fromPosition: middle.position ?? END, direction: BACKWARDS, maxCount: 2 }));
    expect(beforeMiddle.map((e) => `${e.event?.streamId}@${e.event?.revision}`)).toEqual([`${a}@1`, `${a}@0`]);
    const last = await collect(client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 }));
    expect(last.map((e) => `${e.event?.streamId}@${e.event?.revision}`)).toEqual([`${a}@2`]);
  });

  it('serves a read larger than the transport window in full, waiting for the client without piling up listeners', async () => {
    const stream = uniqueStream('large');
    const padding = 'x'.repeat(4_000);
    for (let batch = 0; batch < 6; batch += 1) {
      await client.appendToStream(stream, Array.from({ length: 200 }, (_, n) => jsonEvent({ type: 'Large', data: { n: batch * 200 + n, padding } })));
    }
    // The server waits for 'drain' (or 'cancelled') on the call: count the 'cancelled' listeners each wait finds.
    let mostCancelledListeners = 0;
    const realOnce = EventEmitter.prototype.once;
    const once = jest.spyOn(EventEmitter.prototype, 'once').mockImplementation(function (this: EventEmitter, event: unknown, listener: (...args: unknown[]) => void) {
      if (event === 'cancelled') mostCancelledListeners = Math.max(mostCancelledListeners, this.listenerCount('cancelled') + 1);
      return realOnce.call(this, event as string | symbol, listener);
    });
    try {
      const read = await collect(client.readStream(stream));
      expect(read.map((e) => (e.event?.data as { n: number }).n)).toEqual(Array.from({ length: 1_200 }, (_, n) => n));
    } finally {
      once.mockRestore();
    }
    expect(mostCancelledListeners).toBeGreaterThan(0); // the read did wait for the client
    expect(mostCancelledListeners).toBeLessThan(4);
  });
});

describe('EventStoreDB test server: stream metadata and links in reads', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;
  let now = Date.UTC(2025, 0, 1);

  beforeAll(async () => {
    server = await startEsdbTestServer({ clock: () => now });
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  const types = async (...args: Parameters<EventStoreDBClient['readStream']>): Promise<string[]> =>
    (await collect(client.readStream(...args))).map((e) => `${e.event?.type ?? '?'}@${e.event?.revision ?? '?'}`);

  it('$maxCount keeps only the last n events visible to stream reads (not to $all)', async () => {
    const stream = uniqueStream('maxcount');
    await client.appendToStream(stream, numbered(5));
    await client.setStreamMetadata(stream, { maxCount: 2 });
    expect(await types(stream)).toEqual(['E3@3', 'E4@4']);
    expect(await types(stream, { direction: BACKWARDS, fromRevision: END })).toEqual(['E4@4', 'E3@3']);
    expect(await types(stream, { fromRevision: 1n, maxCount: 1 })).toEqual(['E3@3']);
    await client.appendToStream(stream, numbered(1));
    expect(await types(stream)).toEqual(['E4@4', 'E0@5']);
    const all = await collect(client.readAll());
    expect(all.filter((e) => e.event?.streamId === stream)).toHaveLength(6);
  });

  it('$maxAge hides events older than n seconds', async () => {
    const stream = uniqueStream('maxage');
    await client.appendToStream(stream, numbered(1));
    now += 120_000;
    await client.appendToStream(stream, [jsonEvent({ type: 'Recent', data: {} })]);
    await client.setStreamMetadata(stream, { maxAge: 60 });
    expect(await types(stream)).toEqual(['Recent@1']);
    now += 61_000;
    expect(await types(stream)).toEqual([]);
  });

  it('resolves a link event ($>) written by a client when resolveLinkTos is set, in reads and subscriptions', async () => {
    const target = uniqueStream('target');
    const links = uniqueStream('links');
    await client.appendToStream(target, numbered(3));
    await client.appendToStream(links, [
      binaryEvent({ type: '$>', data: Buffer.from(`1@${target}`) }),
      binaryEvent({ type: '$>', data: Buffer.from(`9@${target}`) }),
    ]);
    const resolved = await collect(client.readStream(links, { resolveLinkTos: true }));
    expect(resolved[0]?.event).toMatchObject({ streamId: target, revision: 1n, type: 'E1' });
    expect(resolved[0]?.link).toMatchObject({ streamId: links, revision: 0n, type: '$>' });
    // A link to nothing comes as the link alone.
    expect(resolved[1]?.event).toBeUndefined();
    expect(resolved[1]?.link).toMatchObject({ streamId: links, revision: 1n });
    const unresolved = await collect(client.readStream(links));
    expect(unresolved.map((e) => [e.event?.type, e.link])).toEqual([
      ['$>', undefined],
      ['$>', undefined],
    ]);
    const subscription = client.subscribeToStream(links, { resolveLinkTos: true });
    const seen = record(subscription);
    await waitFor(() => seen.log.includes('caughtUp'));
    await subscription.unsubscribe();
    expect(seen.events[0]?.event).toMatchObject({ streamId: target, revision: 1n });
    expect(seen.events[0]?.link?.streamId).toBe(links);
  });
});

function drain(call: ClientReadableStream<ReadResp>): Promise<ReadResp[]> {
  return new Promise((resolve, reject) => {
    const responses: ReadResp[] = [];
    call.on('data', (response: ReadResp) => responses.push(response));
    call.on('error', reject);
    call.on('end', () => resolve(responses));
  });
}
