import { credentials, status } from '@grpc/grpc-js';
import {
  ANY,
  binaryEvent,
  EventStoreDBClient,
  jsonEvent,
  NO_STREAM,
  STREAM_EXISTS,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { Empty, StreamIdentifier, UUID } from '@eventstore/db-client/generated/shared_pb';
import { ServerFeaturesClient } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import type { SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb';
import { StreamsClient } from '@eventstore/db-client/generated/streams_grpc_pb';
import { AppendReq } from '@eventstore/db-client/generated/streams_pb';
import type { AppendResp } from '@eventstore/db-client/generated/streams_pb';

import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { collect, disposeAll, uniqueStream } from './int-spec-helpers';

const FIXED_NOW = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

const event = (type = 'Something', data: Record<string, unknown> = {}): ReturnType<typeof jsonEvent> => jsonEvent({ type, data });

describe('EventStoreDB test server: appends', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    server = await startEsdbTestServer({ clock: () => FIXED_NOW });
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  it('advertises its methods through ServerFeatures, lower-cased, with the real feature flags', async () => {
    const features = new ServerFeaturesClient(`${server.host}:${server.port}`, credentials.createInsecure());
    try {
      const methods = await new Promise<SupportedMethods>((resolve, reject) =>
        features.getSupportedMethods(new Empty(), (error, reply) => (error ? reject(error) : resolve(reply))),
      );
      const listed = methods.getMethodsList().map((m) => `${m.getServiceName()}/${m.getMethodName()}:${m.getFeaturesList().join('+')}`);
      expect(listed).toEqual(
        expect.arrayContaining([
          'event_store.client.streams.streams/batchappend:deadline_duration',
          'event_store.client.streams.streams/read:position+events',
          'event_store.client.streams.streams/append:',
          'event_store.client.persistent_subscriptions.persistentsubscriptions/read:stream+all',
          'event_store.client.persistent_subscriptions.persistentsubscriptions/restartsubsystem:',
        ]),
      );
      expect(listed.some((m) => m.includes('projections'))).toBe(false);
    } finally {
      features.close();
    }
  });

  it('numbers a new stream from revision 0 and reports the last revision and a position', async () => {
    const stream = uniqueStream();
    const result = await client.appendToStream(stream, [event(), event(), event()], { expectedRevision: NO_STREAM });
    expect(result.success).toBe(true);
    expect(result.nextExpectedRevision).toBe(2n);
    expect(result.position?.commit).toBeGreaterThan(0n);
    const read = await collect(client.readStream(stream));
    expect(read.map((e) => e.event?.revision)).toEqual([0n, 1n, 2n]);
    expect(read[2]?.event?.position).toEqual(result.position);
  });

  it('appends with an exact expected revision equal to the last revision', async () => {
    const stream = uniqueStream();
    const first = await client.appendToStream(stream, [event(), event()]);
    const second = await client.appendToStream(stream, event(), { expectedRevision: first.nextExpectedRevision });
    expect(second.nextExpectedRevision).toBe(2n);
  });

  it('rejects an exact expected revision that is not the last one with WrongExpectedVersionError', async () => {
    const stream = uniqueStream();
    await client.appendToStream(stream, [event(), event()]);
    const failure = client.appendToStream(stream, event('Late'), { expectedRevision: 0n });
    await expect(failure).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(failure).rejects.toMatchObject({ streamName: stream, expectedVersion: 0n, actualVersion: 1n });
    expect(await collect(client.readStream(stream))).toHaveLength(2);
  });

  it('rejects no_stream when the stream exists, and stream_exists when it does not', async () => {
    const stream = uniqueStream();
    await client.appendToStream(stream, event());
    await expect(client.appendToStream(stream, event(), { expectedRevision: NO_STREAM })).rejects.toMatchObject({
      streamName: stream,
      expectedVersion: NO_STREAM,
      actualVersion: 0n,
    });
    const missing = uniqueStream();
    await expect(client.appendToStream(missing, event(), { expectedRevision: STREAM_EXISTS })).rejects.toMatchObject({
      streamName: missing,
      expectedVersion: STREAM_EXISTS,
      actualVersion: NO_STREAM,
    });
  });

  it('accepts stream_exists on an existing stream and any on both', async () => {
    const stream = uniqueStream();
    await client.appendToStream(stream, event(), { expectedRevision: ANY });
    await client.appendToStream(stream, event(), { expectedRevision: STREAM_EXISTS });
    const third = await client.appendToStream(stream, event(), { expectedRevision: ANY });
    expect(third.nextExpectedRevision).toBe(2n);
  });

  it('treats a retry of the same event ids at the same expected revision as idempotent', async () => {
    const stream = uniqueStream();
    const events = [event('A'), event('B')];
    const first = await client.appendToStream(stream, events, { expectedRevision: NO_STREAM });
    const retry = await client.appendToStream(stream, events, { expectedRevision: NO_STREAM });
    expect(retry).toEqual(first);
    const retryAny = await client.appendToStream(stream, events, { expectedRevision: ANY });
    expect(retryAny.nextExpectedRevision).toBe(1n);
    expect((await collect(client.readStream(stream))).map((e) => e.event?.id)).toEqual(events.map((e) => e.id));
    // Different ids at a stale revision are a conflict, not a retry.
    await expect(client.appendToStream(stream, [event('A'), event('B')], { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
  });

  it('gives $all positions that strictly increase in write order across streams', async () => {
    const a = uniqueStream('a');
    const b = uniqueStream('b');
    const results = [
      await client.appendToStream(a, event()),
      await client.appendToStream(b, [event(), event()]),
      await client.appendToStream(a, event()),
    ];
    const commits = results.map((r) => r.position?.commit ?? -1n);
    expect([...commits].sort((x, y) => (x < y ? -1 : 1))).toEqual(commits);
    expect(new Set(commits).size).toBe(3);
  });

  it('returns the type, JSON data, custom metadata, id and created time of each event', async () => {
    const stream = uniqueStream();
    const sent = jsonEvent({ type: 'RunStarted', data: { runId: 'r1', n: 3 }, metadata: { correlationId: 'c-9' } });
    await client.appendToStream(stream, sent);
    const [read] = await collect(client.readStream(stream));
    expect(read?.event).toMatchObject({
      streamId: stream,
      id: sent.id,
      type: 'RunStarted',
      isJson: true,
      data: { runId: 'r1', n: 3 },
      metadata: { correlationId: 'c-9' },
    });
    // `created` is 100 ns ticks since the Unix epoch: the client turns it back into this exact Date.
    expect(read?.event?.created).toEqual(new Date(FIXED_NOW));
  });

  it('keeps binary events binary', async () => {
    const stream = uniqueStream();
    const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
    await client.appendToStream(stream, binaryEvent({ type: 'Blob', data: bytes }));
    const [read] = await collect(client.readStream(stream));
    expect(read?.event?.isJson).toBe(false);
    expect(Buffer.from(read?.event?.data as Uint8Array)).toEqual(Buffer.from(bytes));
  });

  it('answers a plain Append conflict with an AppendResp, not a gRPC error', async () => {
    const stream = uniqueStream();
    await client.appendToStream(stream, [event(), event()]);
    const raw = new StreamsClient(`${server.host}:${server.port}`, credentials.createInsecure());
    try {
      const response = await new Promise<AppendResp>((resolve, reject) => {
        const call = raw.append((error, reply) => (error ? reject(error) : resolve(reply)));
        const options = new AppendReq.Options();
        const identifier = new StreamIdentifier();
        identifier.setStreamName(Buffer.from(stream));
        options.setStreamIdentifier(identifier);
        options.setRevision('5');
        call.write(new AppendReq().setOptions(options));
        const message = new AppendReq.ProposedMessage();
        message.setId(new UUID().setString('0b4b6a4e-8b5d-4e43-9d62-3a4a1a6f0c11'));
        message.getMetadataMap().set('type', 'X').set('content-type', 'application/json');
        message.setData(Buffer.from('{}'));
        call.write(new AppendReq().setProposedMessage(message));
        call.end();
      });
      expect(response.hasWrongExpectedVersion()).toBe(true);
      expect(response.getWrongExpectedVersion()?.getCurrentRevision()).toBe('1');
      expect(response.getWrongExpectedVersion()?.getExpectedRevision()).toBe('5');
    } finally {
      raw.close();
    }
  });

  it('fails injected appends with the chosen status without writing, then recovers', async () => {
    const stream = uniqueStream();
    server.failNextAppends(1, status.UNAVAILABLE);
    await expect(client.appendToStream(stream, event())).rejects.toBeInstanceOf(UnavailableError);
    const after = await client.appendToStream(stream, event(), { expectedRevision: NO_STREAM });
    expect(after.nextExpectedRevision).toBe(0n);
  });
});
