import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  jsonEvent,
  NO_STREAM,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';

import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { collect, disposeAll, record, uniqueStream, waitFor } from './int-spec-helpers';

const events = (count: number, type = 'Tick'): ReturnType<typeof jsonEvent>[] =>
  Array.from({ length: count }, (_, n) => jsonEvent({ type, data: { n } }));

describe('EventStoreDB test server: soft delete and tombstone', () => {
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

  describe('deleteStream (soft delete)', () => {
    it('makes the stream read as not found', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(4));
      const result = await client.deleteStream(stream);
      expect(result.position?.commit).toBeGreaterThan(0n);
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('checks the expected revision and reports a conflict as WrongExpectedVersionError', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(4));
      await expect(client.deleteStream(stream, { expectedRevision: 2n })).rejects.toMatchObject({
        streamName: stream,
        expectedVersion: 2n,
        actualVersion: 3n,
      });
      await expect(client.deleteStream(stream, { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await client.deleteStream(stream, { expectedRevision: 3n });
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it.each([
      ['any', ANY],
      ['no_stream', NO_STREAM],
      ['the last revision', 1n],
    ] as const)('is undone by an append expecting %s, revisions continuing after the old last one', async (_name, expectedRevision) => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(2, 'Old'), { expectedRevision: NO_STREAM });
      await client.deleteStream(stream, { expectedRevision: 1n });
      const recreated = await client.appendToStream(stream, events(3, 'New'), { expectedRevision });
      expect(recreated.nextExpectedRevision).toBe(4n);
      const read = await collect(client.readStream(stream));
      expect(read.map((e) => `${e.event?.type}@${e.event?.revision}`)).toEqual(['New@2', 'New@3', 'New@4']);
    });

    it('only lets the first write after the delete recreate with no_stream', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(2), { expectedRevision: NO_STREAM });
      await client.deleteStream(stream);
      await client.appendToStream(stream, events(3), { expectedRevision: NO_STREAM });
      await expect(client.appendToStream(stream, events(1), { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(
        WrongExpectedVersionError,
      );
    });

    it('keeps the old events in $all and records the deletion as $metadata in the metastream', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(2));
      await client.deleteStream(stream);
      const all = await collect(client.readAll());
      expect(all.filter((e) => e.event?.streamId === stream)).toHaveLength(2);
      const metadata = all.filter((e) => e.event?.streamId === `$$${stream}`);
      expect(metadata.map((e) => e.event?.type)).toEqual(['$metadata']);
    });
  });

  describe('deleteStream of a stream without events', () => {
    it('answers WrongExpectedVersionError for a stream never written, even expecting any', async () => {
      const stream = uniqueStream('never');
      await expect(client.deleteStream(stream, { expectedRevision: ANY })).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(client.deleteStream(stream, { expectedRevision: ANY })).rejects.toMatchObject({ streamName: stream, expectedVersion: -2n });
      await expect(client.deleteStream(stream, { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(collect(client.readStream(`$$${stream}`))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it.each([
      ['any', ANY],
      ['no_stream', NO_STREAM],
    ] as const)('deletes a stream that has only metadata, expecting %s', async (_name, expectedRevision) => {
      const stream = uniqueStream('metaonly');
      await client.setStreamMetadata(stream, { maxCount: 5 });
      const result = await client.deleteStream(stream, { expectedRevision });
      expect(result.position?.commit).toBeGreaterThan(0n);
      const [last] = await collect(client.readStream(`$$${stream}`, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }));
      expect(JSON.stringify(last?.event?.data)).toContain('"$tb":9223372036854776000');
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
    });
  });

  describe('tombstoneStream (hard delete)', () => {
    it('makes reads fail with StreamDeletedError naming the stream', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(2));
      await client.tombstoneStream(stream);
      const read = collect(client.readStream(stream));
      await expect(read).rejects.toBeInstanceOf(StreamDeletedError);
      await expect(read).rejects.toMatchObject({ streamName: stream });
    });

    it('makes every later append fail with StreamDeletedError, whatever the expected revision', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(1));
      await client.tombstoneStream(stream, { expectedRevision: 0n });
      await expect(client.appendToStream(stream, events(1))).rejects.toBeInstanceOf(StreamDeletedError);
      await expect(client.appendToStream(stream, events(1), { expectedRevision: NO_STREAM })).rejects.toMatchObject({
        streamName: stream,
      });
      await expect(client.tombstoneStream(stream)).rejects.toBeInstanceOf(StreamDeletedError);
      await expect(client.deleteStream(stream)).rejects.toBeInstanceOf(StreamDeletedError);
    });

    it('checks the expected revision, and accepts no_stream for a stream that never existed', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(3));
      await expect(client.tombstoneStream(stream, { expectedRevision: 1n })).rejects.toMatchObject({
        streamName: stream,
        expectedVersion: 1n,
      });
      await expect(client.tombstoneStream(stream, { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(WrongExpectedVersionError);
      const never = uniqueStream('never');
      await client.tombstoneStream(never, { expectedRevision: NO_STREAM });
      await expect(collect(client.readStream(never))).rejects.toBeInstanceOf(StreamDeletedError);
    });

    it('hard-deletes a soft-deleted stream', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(2));
      await client.deleteStream(stream, { expectedRevision: 1n });
      await client.tombstoneStream(stream);
      await expect(collect(client.readStream(stream))).rejects.toBeInstanceOf(StreamDeletedError);
    });

    it('ends a live subscription to the stream with StreamDeletedError', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(1));
      const subscription = client.subscribeToStream(stream);
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await client.tombstoneStream(stream);
      await waitFor(() => seen.errors.length === 1, 5_000, 'a subscription error');
      expect(seen.errors[0]).toBeInstanceOf(StreamDeletedError);
    });
  });
});
