import { randomUUID } from 'node:crypto';
import type { EventData, RecordedEvent } from '../port/event';
import type { EventStore } from '../port/event-store';
import { ExpectedRevision } from '../port/expected-revision';
import { EventStoreError, EventStoreErrorCode } from '../port/errors/event-store-error';
import { EventTooLargeError } from '../port/errors/event-too-large.error';
import { InvalidEventError } from '../port/errors/invalid-event.error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { InvalidPositionError } from '../port/errors/invalid-position.error';
import { InvalidStreamNameError } from '../port/errors/invalid-stream-name.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { categoryFilter, eventTypeFilter } from '../port/event-filter';
import { comparePositions, parsePosition, positionToToken } from '../port/position';
import { streamName } from '../stream-name';
import { MAX_APPEND_SIZE } from '../validation/limits';
import {
  anEvent,
  errorOf,
  headPosition,
  puller,
  readAllAfter,
  rejectionOf,
  someEvents,
  take,
  uniqueCategory,
  uniqueStream,
} from './contract-helpers';
import { describeMultiStreamAppendContract } from './multi-stream-append-contract';

/** How the contract suite gets stores of the adapter under test. */
export interface EventStoreContractFactory {
  /**
   * A store to test. It may already hold events (a shared EventStoreDB): every
   * test uses its own categories and reads `$all` after the head it found.
   * The suite closes every store it created after each test.
   */
  create(): EventStore | Promise<EventStore>;
  /**
   * Closes `store` and opens a new instance on the same storage (a process
   * restart). Omit it for stores without durable storage (in-memory): the
   * restart tests are then skipped.
   */
  reopen?(store: EventStore): Promise<EventStore>;
  /** Called once after the suite (remove temporary directories...). */
  dispose?(): void | Promise<void>;
}

/** Tunables of the contract suite. */
export interface EventStoreContractOptions {
  /**
   * Deadline for a live event to reach a subscription, in ms.
   * @default 5000
   */
  readonly liveDeadlineMs?: number;
  /**
   * Jest timeout of the heavier tests (concurrency, large payloads), in ms.
   * @default 30000
   */
  readonly slowTestTimeoutMs?: number;
  /**
   * Whether the adapter appends to several streams in one commit
   * (`MultiStreamAppend`): its contract is then run; otherwise the suite
   * checks that the store does not claim it.
   * @default true
   */
  readonly multiStreamAppend?: boolean;
}

/**
 * The store contract: one suite every adapter of the event-store port must
 * pass (embedded SQLite, in-memory, EventStoreDB against the protocol-level
 * server and against a real server). Call it from the adapter's
 * `*.int-spec.ts`:
 *
 * @example
 * describeEventStoreContract('SqliteEventStore', { create: () => SqliteEventStore.open({ path }) });
 */
export function describeEventStoreContract(name: string, factory: EventStoreContractFactory, options: EventStoreContractOptions = {}): void {
  const live = options.liveDeadlineMs ?? 5_000;
  const slow = options.slowTestTimeoutMs ?? 30_000;

  describe(`${name}: event-store contract`, () => {
    const opened = new Set<EventStore>();
    let store: EventStore;

    const open = async (): Promise<EventStore> => {
      const s = await factory.create();
      opened.add(s);
      return s;
    };
    const reopen = async (s: EventStore): Promise<EventStore> => {
      if (!factory.reopen) throw new Error('reopen not supported');
      opened.delete(s);
      const again = await factory.reopen(s);
      opened.add(again);
      return again;
    };

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      for (const s of opened) await s.close();
      opened.clear();
    });

    afterAll(async () => {
      await factory.dispose?.();
    });

    describe('append', () => {
      it('appends to a new stream with no_stream and reads every field back', async () => {
        const stream = uniqueStream();
        const events: EventData[] = [
          anEvent('StepStarted', { runId: 'r1', nested: { list: [1, 'two', null, true, { x: 1.5 }] }, unicode: 'héllo ✓ 日本' }, {
            $correlationId: 'corr-1',
            $causationId: 'cause-1',
            schemaVersion: 2,
            free: { k: 'v' },
          }),
          anEvent('StepCompleted', { ok: true }),
        ];
        const before = Date.now();
        const result = await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(result.nextExpectedRevision).toBe(1n);

        const read = await store.readStream(stream);
        expect(read.streamExists).toBe(true);
        expect(read.currentRevision).toBe(1n);
        expect(read.events).toHaveLength(2);
        const [first, second] = read.events;
        expect(first).toMatchObject({ streamName: stream, id: events[0]?.id, type: 'StepStarted', revision: 0n, data: events[0]?.data });
        expect(first?.metadata).toEqual({ $correlationId: 'corr-1', $causationId: 'cause-1', schemaVersion: 2, free: { k: 'v' } });
        expect(second).toMatchObject({ id: events[1]?.id, type: 'StepCompleted', revision: 1n, data: { ok: true }, metadata: {} });
        expect(first?.created).toBeInstanceOf(Date);
        expect(first?.created.getTime()).toBeGreaterThanOrEqual(before - 60_000);
        expect(second?.position).toBe(result.position);
        expect(comparePositions(first?.position as never, second?.position as never)).toBeLessThan(0);
      });

      it('continues a stream at the exact revision, with contiguous revisions', async () => {
        const stream = uniqueStream();
        let r = await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
        r = await store.append(stream, someEvents(3, 'Counted', 2), { expectedRevision: r.nextExpectedRevision });
        expect(r.nextExpectedRevision).toBe(4n);
        const read = await store.readStream(stream);
        expect(read.events.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
        expect(read.events.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
      });

      it('appends with any to a new and to an existing stream', async () => {
        const stream = uniqueStream();
        expect((await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.ANY })).nextExpectedRevision).toBe(0n);
        expect((await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.ANY })).nextExpectedRevision).toBe(1n);
      });

      it('stream_exists fails on a missing stream and succeeds on an existing one', async () => {
        const stream = uniqueStream();
        const error = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.STREAM_EXISTS }));
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(error).toMatchObject({ streamName: stream, expected: 'stream_exists', actual: 'no_stream' });
        await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
        expect((await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.STREAM_EXISTS })).nextExpectedRevision).toBe(1n);
      });

      it('rejects no_stream on an existing stream with a typed conflict and writes nothing', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
        const error = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }));
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(error).toBeInstanceOf(EventStoreError);
        expect(error).toMatchObject({ code: EventStoreErrorCode.WRONG_EXPECTED_REVISION, streamName: stream, expected: 'no_stream', actual: 2n, retryable: false });
        expect((await store.readStream(stream)).events).toHaveLength(3);
      });

      it('rejects a stale or a future exact revision with expected and actual', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: 1n }))).toMatchObject({
          streamName: stream,
          expected: 1n,
          actual: 2n,
        });
        expect(await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: 7n }))).toMatchObject({ expected: 7n, actual: 2n });
        expect(await rejectionOf(store.append(uniqueStream(), [anEvent()], { expectedRevision: 0n }))).toMatchObject({
          expected: 0n,
          actual: 'no_stream',
        });
        expect((await store.readStream(stream)).events).toHaveLength(3);
      });

      it('lets exactly one of concurrent appends with the same expected revision win', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => store.append(stream, [anEvent('Counted', { i })], { expectedRevision: 0n })),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(stream)).events).toHaveLength(2);
      });
    });

    describeMultiStreamAppendContract(() => store, options.multiStreamAppend ?? true, slow);

    describe('idempotent re-append (deterministic ids)', () => {
      it('re-appending the same ids with the same expected revision succeeds with the same result and writes nothing', async () => {
        const stream = uniqueStream();
        const events = someEvents(3);
        const first = await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
        const again = await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(again).toEqual(first);
        expect((await store.readStream(stream)).events.map((e) => e.id)).toEqual(events.map((e) => e.id));
      });

      it('is idempotent at an exact revision even after the stream moved on', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
        const mine = someEvents(2, 'Mine');
        const first = await store.append(stream, mine, { expectedRevision: 1n });
        await store.append(stream, someEvents(2, 'Later'), { expectedRevision: 3n });
        const again = await store.append(stream, mine, { expectedRevision: 1n });
        expect(again).toEqual(first);
        expect(again.nextExpectedRevision).toBe(3n);
        expect((await store.readStream(stream)).events).toHaveLength(6);
      });

      it('treats the same ids at a different expected revision as a conflict', async () => {
        const stream = uniqueStream();
        const events = someEvents(3);
        await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
        // events[1] sits at revision 1; expecting the stream empty implies it at revision 0.
        const error = await rejectionOf(store.append(stream, [events[1] as EventData], { expectedRevision: ExpectedRevision.NO_STREAM }));
        expect(error).toMatchObject({ code: 'WRONG_EXPECTED_REVISION', expected: 'no_stream', actual: 2n });
        expect(await rejectionOf(store.append(stream, [events[2] as EventData], { expectedRevision: 0n }))).toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        expect((await store.readStream(stream)).events).toHaveLength(3);
      });

      it('treats a partial match (first ids written, others not) as a conflict and writes nothing', async () => {
        const stream = uniqueStream();
        const events = someEvents(2);
        await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
        const extended = [...events, anEvent()];
        expect(await rejectionOf(store.append(stream, extended, { expectedRevision: ExpectedRevision.NO_STREAM }))).toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        const changed = [events[0] as EventData, anEvent()];
        expect(await rejectionOf(store.append(stream, changed, { expectedRevision: ExpectedRevision.NO_STREAM }))).toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        expect((await store.readStream(stream)).events).toHaveLength(2);
      });

      it('with any, re-appending ids already in the stream (last or earlier) is idempotent', async () => {
        const stream = uniqueStream();
        const early = someEvents(2, 'Early');
        const r1 = await store.append(stream, early, { expectedRevision: ExpectedRevision.ANY });
        const last = someEvents(2, 'Last');
        const r2 = await store.append(stream, last, { expectedRevision: ExpectedRevision.ANY });
        expect(await store.append(stream, last, { expectedRevision: ExpectedRevision.ANY })).toEqual(r2);
        expect(await store.append(stream, early, { expectedRevision: ExpectedRevision.ANY })).toEqual(r1);
        expect(await store.append(stream, last, { expectedRevision: ExpectedRevision.STREAM_EXISTS })).toEqual(r2);
        expect((await store.readStream(stream)).events).toHaveLength(4);
      });

      it('deduplicates concurrent retries of the same append', async () => {
        const stream = uniqueStream();
        const events = someEvents(2);
        const results = await Promise.all([
          store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM }),
          store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM }),
          store.append(stream, events, { expectedRevision: ExpectedRevision.ANY }),
        ]);
        expect(results[1]).toEqual(results[0]);
        expect(results[2]).toEqual(results[0]);
        expect((await store.readStream(stream)).events).toHaveLength(2);
      });
    });

    describe('bad input is rejected with a typed error and nothing is written', () => {
      it.each([
        ['empty', ''],
        ['no dash', 'runabc'],
        ['empty category', '-abc'],
        ['empty id', 'run-'],
        ['reserved $ category', '$ce-run'],
        ['whitespace in id', 'run-a b'],
        ['bad category character', 'ru n-abc'],
        ['too long', `run-${'x'.repeat(300)}`],
      ])('stream name: %s', async (_label, name) => {
        const error = await rejectionOf(store.append(name, [anEvent()], { expectedRevision: ExpectedRevision.ANY }));
        expect(error).toBeInstanceOf(InvalidStreamNameError);
        expect(error).toMatchObject({ code: 'INVALID_STREAM_NAME', streamName: name });
        expect(await errorOf(() => store.readStream(name))).toBeInstanceOf(InvalidStreamNameError);
      });

      const circular: Record<string, unknown> = { a: 1 };
      circular['self'] = circular;
      it.each<[string, Partial<EventData> | Record<string, unknown>, string]>([
        ['id not a UUID', { id: 'step-1' }, 'id'],
        ['empty type', { type: '' }, 'type'],
        ['reserved $ type', { type: '$metadata' }, 'type'],
        ['data a function', { data: { f: () => 1 } }, 'data'],
        ['data with a bigint', { data: { n: 1n } }, 'data'],
        ['data circular', { data: circular }, 'data'],
        ['data NaN', { data: { n: Number.NaN } }, 'data'],
        ['data Infinity', { data: { n: Number.POSITIVE_INFINITY } }, 'data'],
        ['data undefined', { data: undefined }, 'data'],
        ['data an array', { data: [1, 2] }, 'data'],
        ['data a string', { data: 'text' }, 'data'],
        ['data with a Date', { data: { at: new Date(0) } }, 'data'],
        ['data with undefined in an array', { data: { list: [1, undefined] } }, 'data'],
        ['metadata not an object', { metadata: 'x' }, 'metadata'],
        ['metadata $correlationId not a string', { metadata: { $correlationId: 42 } }, 'metadata'],
        ['metadata schemaVersion not a positive integer', { metadata: { schemaVersion: 0 } }, 'metadata'],
      ])('event: %s', async (_label, override, field) => {
        const stream = uniqueStream();
        const bad = { ...anEvent(), ...override } as unknown as EventData;
        const error = await rejectionOf(store.append(stream, [anEvent(), bad], { expectedRevision: ExpectedRevision.ANY }));
        expect(error).toBeInstanceOf(InvalidEventError);
        expect(error).toMatchObject({ code: 'INVALID_EVENT', field, eventIndex: 1 });
        expect((await store.readStream(stream)).streamExists).toBe(false);
      });

      it('an empty list of events', async () => {
        const error = await rejectionOf(store.append(uniqueStream(), [], { expectedRevision: ExpectedRevision.ANY }));
        expect(error).toMatchObject({ code: 'INVALID_EVENT', field: 'events' });
      });

      it('an expected revision that is a number, negative, or unknown', async () => {
        for (const expectedRevision of [1, -1n, 'latest', undefined]) {
          const error = await rejectionOf(store.append(uniqueStream(), [anEvent()], { expectedRevision } as never));
          expect(error).toBeInstanceOf(InvalidOptionError);
          expect(error).toMatchObject({ option: 'expectedRevision' });
        }
      });

      it('an event over 1 MiB, and an append over 1 MiB in total', async () => {
        const stream = uniqueStream();
        const big = anEvent('Big', { blob: 'x'.repeat(MAX_APPEND_SIZE) });
        const error = await rejectionOf(store.append(stream, [anEvent(), big], { expectedRevision: ExpectedRevision.ANY }));
        expect(error).toBeInstanceOf(EventTooLargeError);
        expect(error).toMatchObject({ code: 'EVENT_TOO_LARGE', limit: 1_048_576, eventIndex: 1 });
        expect((error as EventTooLargeError).size).toBeGreaterThan(1_048_576);

        const half = (): EventData => anEvent('Half', { blob: 'y'.repeat(600_000) });
        const total = await rejectionOf(store.append(stream, [half(), half()], { expectedRevision: ExpectedRevision.ANY }));
        expect(total).toMatchObject({ code: 'EVENT_TOO_LARGE', eventIndex: undefined });
        expect((await store.readStream(stream)).streamExists).toBe(false);
      });

      it('counts size in UTF-8 bytes, not characters', async () => {
        // 400,000 three-byte characters: 1.2 MB in UTF-8, 400k UTF-16 characters.
        const error = await rejectionOf(store.append(uniqueStream(), [anEvent('Wide', { s: '日'.repeat(400_000) })], { expectedRevision: ExpectedRevision.ANY }));
        expect(error).toBeInstanceOf(EventTooLargeError);
      });
    });

    describe('large payloads', () => {
      it(
        'round-trips a 512 KiB payload with multi-byte characters',
        async () => {
          const stream = uniqueStream();
          const blob = 'ab✓'.repeat(100_000) + 'z'.repeat(200_000);
          const event = anEvent('Large', { blob, list: Array.from({ length: 1000 }, (_, i) => ({ i })) });
          await store.append(stream, [event], { expectedRevision: ExpectedRevision.NO_STREAM });
          const [read] = (await store.readStream(stream)).events;
          expect((read?.data as { blob: string }).blob).toBe(blob);
          expect(read?.data).toEqual(event.data);
        },
        slow,
      );
    });

    describe('readStream', () => {
      it('reports a missing stream as a result, not an error', async () => {
        const read = await store.readStream(uniqueStream());
        expect(read).toEqual({ streamExists: false, currentRevision: 'no_stream', events: [] });
      });

      it('reads forwards from a revision, inclusive, with a max count', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(10), { expectedRevision: ExpectedRevision.NO_STREAM });
        const read = await store.readStream(stream, { fromRevision: 3n, maxCount: 4 });
        expect(read.events.map((e) => e.revision)).toEqual([3n, 4n, 5n, 6n]);
        expect(read.currentRevision).toBe(9n);
        expect((await store.readStream(stream, { fromRevision: 10n })).events).toEqual([]);
      });

      it('reads backwards from the end and from a revision', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(5), { expectedRevision: ExpectedRevision.NO_STREAM });
        expect((await store.readStream(stream, { direction: 'backwards' })).events.map((e) => e.revision)).toEqual([4n, 3n, 2n, 1n, 0n]);
        expect((await store.readStream(stream, { direction: 'backwards', fromRevision: 2n, maxCount: 2 })).events.map((e) => e.revision)).toEqual([
          2n,
          1n,
        ]);
        expect((await store.readStream(stream, { direction: 'backwards', maxCount: 1 })).events.map((e) => e.revision)).toEqual([4n]);
      });

      it('rejects invalid read options', async () => {
        const stream = uniqueStream();
        expect(await errorOf(() => store.readStream(stream, { maxCount: 0 }))).toBeInstanceOf(InvalidOptionError);
        expect(await errorOf(() => store.readStream(stream, { fromRevision: 3 as never }))).toBeInstanceOf(InvalidOptionError);
      });
    });

    describe('$all', () => {
      it('reads every append in global order, positions increasing and equal to the append results', async () => {
        const head = await headPosition(store);
        const category = uniqueCategory();
        const a = streamName(category, 'a');
        const b = streamName(category, 'b');
        const results = [];
        results.push(await store.append(a, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM }));
        results.push(await store.append(b, someEvents(1), { expectedRevision: ExpectedRevision.NO_STREAM }));
        results.push(await store.append(a, someEvents(1, 'Counted', 2), { expectedRevision: 1n }));
        const all = (await readAllAfter(store, head)).filter((e) => e.streamName.startsWith(`${category}-`));
        expect(all.map((e) => `${e.streamName}@${e.revision}`)).toEqual([`${a}@0`, `${a}@1`, `${b}@0`, `${a}@2`]);
        for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1]!.position, all[i]!.position)).toBeLessThan(0);
        expect([all[1]?.position, all[2]?.position, all[3]?.position]).toEqual(results.map((r) => r.position));
      });

      it('reads from a position inclusive, and backwards from the end', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(5), { expectedRevision: ExpectedRevision.NO_STREAM });
        const events = (await store.readStream(stream)).events;
        const from = events[2]!.position;
        const forwards = [];
        for await (const e of store.readAll({ fromPosition: from, maxCount: 3 })) forwards.push(e);
        expect(forwards.map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));
        const backwards = [];
        for await (const e of store.readAll({ direction: 'backwards', maxCount: 2 })) backwards.push(e);
        expect(backwards.map((e) => e.id)).toEqual([events[4]!.id, events[3]!.id]);
        const backFrom = [];
        for await (const e of store.readAll({ direction: 'backwards', fromPosition: from, maxCount: 2 })) backFrom.push(e);
        expect(backFrom.map((e) => e.id)).toEqual([events[2]!.id, events[1]!.id]);
      });

      it('filters by stream-name prefix and by event-type prefix', async () => {
        const head = await headPosition(store);
        const mine = uniqueCategory('m');
        const other = uniqueCategory('o');
        const type = `T${randomUUID().replace(/-/g, '')}`;
        await store.append(streamName(mine, '1'), [anEvent(`${type}Started`), anEvent('Other')], { expectedRevision: ExpectedRevision.ANY });
        await store.append(streamName(other, '1'), [anEvent(`${type}Done`), anEvent('Other')], { expectedRevision: ExpectedRevision.ANY });
        await store.append(streamName(mine, '2'), [anEvent('Other')], { expectedRevision: ExpectedRevision.ANY });
        const byStream = await readAllAfter(store, head, categoryFilter(mine));
        expect(byStream.map((e) => e.streamName)).toEqual([streamName(mine, '1'), streamName(mine, '1'), streamName(mine, '2')]);
        const byType = await readAllAfter(store, head, eventTypeFilter(type));
        expect(byType.map((e) => e.type)).toEqual([`${type}Started`, `${type}Done`]);
        expect(await errorOf(() => readAllAfter(store, head, { streamNamePrefixes: [] }))).toBeInstanceOf(InvalidOptionError);
        expect(
          await errorOf(() => readAllAfter(store, head, { streamNamePrefixes: ['a'], eventTypePrefixes: ['b'] } as never)),
        ).toBeInstanceOf(InvalidOptionError);
      });

      it('positions serialise to a string token and parse back', async () => {
        const { position } = await store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.ANY });
        const token = positionToToken(position);
        expect(typeof token).toBe('string');
        expect(JSON.parse(JSON.stringify({ token })).token).toBe(token);
        expect(parsePosition(token)).toBe(position);
        expect(comparePositions(parsePosition(token), position)).toBe(0);
        for (const bad of ['', 'abc', '1', '-1:2', '1:2:3', '01:1']) expect(() => parsePosition(bad)).toThrow(InvalidPositionError);
      });
    });

    describe('subscriptions', () => {
      it('to a stream: history from the start, then live, in order', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
        const subscription = store.subscribeToStream(stream, { batchSize: 2 });
        const pull = puller(subscription);
        expect((await pull.take(3, live)).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
        await store.append(stream, someEvents(2, 'Counted', 3), { expectedRevision: 2n });
        await store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.ANY });
        const liveEvents = await pull.take(2, live);
        expect(liveEvents.map((e) => [e.streamName, e.revision])).toEqual([
          [stream, 3n],
          [stream, 4n],
        ]);
        await subscription.close();
      });

      it('to a stream after a revision is exclusive of it, and may start before the stream exists', async () => {
        const stream = uniqueStream();
        const early = store.subscribeToStream(stream);
        const pullEarly = puller(early);
        await store.append(stream, someEvents(4), { expectedRevision: ExpectedRevision.NO_STREAM });
        expect((await pullEarly.take(4, live)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
        const after = store.subscribeToStream(stream, { afterRevision: 1n });
        expect((await take(after, 2, live)).map((e) => e.revision)).toEqual([2n, 3n]);
        await Promise.all([early.close(), after.close()]);
      });

      it('to $all from a checkpoint: the event at the checkpoint is not delivered again', async () => {
        const category = uniqueCategory();
        const stream = streamName(category, '1');
        await store.append(stream, someEvents(5), { expectedRevision: ExpectedRevision.NO_STREAM });
        const events = (await store.readStream(stream)).events;
        const checkpoint = parsePosition(positionToToken(events[1]!.position)); // as stored and read back
        const subscription = store.subscribeToAll({ after: checkpoint, filter: categoryFilter(category) });
        expect((await take(subscription, 3, live)).map((e) => e.revision)).toEqual([2n, 3n, 4n]);
        await subscription.close();
      });

      it('to $all from the start delivers history, then live after catch-up', async () => {
        const category = uniqueCategory();
        await store.append(streamName(category, '1'), someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
        const subscription = store.subscribeToAll({ filter: categoryFilter(category) });
        const pull = puller(subscription);
        expect(await pull.take(3, live)).toHaveLength(3);
        expect(await pull.nothingWithin(50)).toBe(true);
        await store.append(streamName(category, '2'), [anEvent('Live')], { expectedRevision: ExpectedRevision.NO_STREAM });
        const [liveEvent] = await pull.take(1, live);
        expect(liveEvent).toMatchObject({ streamName: streamName(category, '2'), type: 'Live', revision: 0n });
        await subscription.close();
      });

      it(
        'has no gap and no reordering while appends race the catch-up',
        async () => {
          const category = uniqueCategory();
          const a = streamName(category, 'a');
          const b = streamName(category, 'b');
          await store.append(a, someEvents(50), { expectedRevision: ExpectedRevision.NO_STREAM });
          const subscription = store.subscribeToAll({ filter: categoryFilter(category), batchSize: 7 });
          const writer = (async () => {
            let ra = 49n;
            let rb: bigint | 'no_stream' = ExpectedRevision.NO_STREAM;
            for (let i = 0; i < 40; i++) {
              ra = (await store.append(a, someEvents(1 + (i % 3), 'A'), { expectedRevision: ra })).nextExpectedRevision;
              rb = (await store.append(b, someEvents(1, 'B'), { expectedRevision: rb })).nextExpectedRevision;
            }
          })();
          const expectedTotal = 50 + 40 + 40 + Array.from({ length: 40 }, (_, i) => i % 3).reduce((s, x) => s + x, 0);
          const received = await take(subscription, expectedTotal, live * 4);
          await writer;
          await subscription.close();
          const stored = await readAllAfter(store, undefined, categoryFilter(category));
          expect(received.map((e) => e.id)).toEqual(stored.map((e) => e.id));
          expect(new Set(received.map((e) => e.id)).size).toBe(expectedTotal);
          for (const s of [a, b]) {
            const revisions = received.filter((e) => e.streamName === s).map((e) => Number(e.revision));
            expect(revisions).toEqual(revisions.map((_, i) => i));
          }
        },
        slow,
      );

      it('filters live events by stream-name prefix and by event-type prefix', async () => {
        const category = uniqueCategory();
        const type = `T${randomUUID().replace(/-/g, '')}`;
        const byStream = store.subscribeToAll({ filter: categoryFilter(category) });
        const byType = store.subscribeToAll({ filter: eventTypeFilter(type) });
        const pullStream = puller(byStream);
        const pullType = puller(byType);
        await store.append(uniqueStream(), [anEvent('Noise'), anEvent(`${type}A`)], { expectedRevision: ExpectedRevision.ANY });
        await store.append(streamName(category, 'x'), [anEvent('Mine')], { expectedRevision: ExpectedRevision.ANY });
        await store.append(uniqueStream(), [anEvent(`${type}B`)], { expectedRevision: ExpectedRevision.ANY });
        expect((await pullStream.take(1, live)).map((e) => e.type)).toEqual(['Mine']);
        expect((await pullType.take(2, live)).map((e) => e.type)).toEqual([`${type}A`, `${type}B`]);
        expect(await pullStream.nothingWithin(50)).toBe(true);
        await Promise.all([byStream.close(), byType.close()]);
      });

      it('filters a history longer than its pages: only the matching events, in order, from after a position, then live ones', async () => {
        const category = uniqueCategory();
        const type = `T${randomUUID().replace(/-/g, '')}`;
        // 90 events, every third one in the category and of the type, across pages of 7.
        for (let i = 0; i < 90; i += 3) {
          await store.append(uniqueStream(), [anEvent('Noise'), anEvent('Noise')], { expectedRevision: ExpectedRevision.ANY });
          await store.append(streamName(category, String(i)), [anEvent(`${type}-${i}`)], { expectedRevision: ExpectedRevision.ANY });
        }
        const first = store.subscribeToAll({ filter: eventTypeFilter(type), batchSize: 7 });
        const all = await puller(first).take(30, live);
        expect(all.map((e) => e.type)).toEqual(Array.from({ length: 30 }, (_, k) => `${type}-${k * 3}`));
        await first.close();

        const resumed = store.subscribeToAll({ filter: categoryFilter(category), batchSize: 7, after: (all[9] as RecordedEvent).position });
        const pull = puller(resumed);
        expect((await pull.take(20, live)).map((e) => e.type)).toEqual(Array.from({ length: 20 }, (_, k) => `${type}-${(k + 10) * 3}`));
        await store.append(uniqueStream(), [anEvent('Noise')], { expectedRevision: ExpectedRevision.ANY });
        await store.append(streamName(category, 'live'), [anEvent('Live')], { expectedRevision: ExpectedRevision.ANY });
        expect((await pull.take(1, live)).map((e) => e.type)).toEqual(['Live']);
        expect(await pull.nothingWithin(50)).toBe(true);
        await resumed.close();
      });

      it('ends on close(), on its abort signal, and on break', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });

        const closing = store.subscribeToStream(stream);
        const iterator = closing[Symbol.asyncIterator]();
        await iterator.next();
        await iterator.next();
        await iterator.next();
        const pending = iterator.next(); // waits for a live event
        await closing.close();
        expect(await pending).toEqual({ done: true, value: undefined });
        expect(closing.closed).toBe(true);

        const controller = new AbortController();
        const aborted = store.subscribeToAll({ signal: controller.signal, filter: categoryFilter(uniqueCategory()) });
        const abortedNext = aborted[Symbol.asyncIterator]().next();
        controller.abort();
        expect(await abortedNext).toEqual({ done: true, value: undefined });
        expect(aborted.closed).toBe(true);

        const breaking = store.subscribeToStream(stream);
        let seen = 0;
        for await (const _event of breaking) {
          if (++seen === 2) break;
        }
        expect(breaking.closed).toBe(true);
      });

      it('rejects invalid subscription options', async () => {
        expect(await errorOf(() => store.subscribeToAll({ after: 'nope' as never }))).toBeInstanceOf(InvalidPositionError);
        expect(await errorOf(() => store.subscribeToAll({ batchSize: 0 }))).toBeInstanceOf(InvalidOptionError);
        expect(await errorOf(() => store.subscribeToStream(uniqueStream(), { afterRevision: 1 as never }))).toBeInstanceOf(InvalidOptionError);
        expect(await errorOf(() => store.subscribeToStream('bad name'))).toBeInstanceOf(InvalidStreamNameError);
      });
    });

    describe('concurrent appenders', () => {
      it(
        'read-decide-append loops with expected revisions never lose an update',
        async () => {
          const stream = uniqueStream();
          const writers = 8;
          const perWriter = 10;
          let conflicts = 0;
          const writer = async (w: number): Promise<void> => {
            for (let i = 0; i < perWriter; ) {
              const { currentRevision, events } = await store.readStream(stream);
              const next = events.length; // the decision depends on what was read
              try {
                await store.append(stream, [anEvent('Incremented', { n: next, writer: w })], { expectedRevision: currentRevision });
                i++;
              } catch (error) {
                if (!(error instanceof WrongExpectedRevisionError)) throw error;
                conflicts++;
              }
            }
          };
          await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
          const { events } = await store.readStream(stream);
          expect(events).toHaveLength(writers * perWriter);
          expect(events.map((e) => (e.data as { n: number }).n)).toEqual(events.map((_, i) => i));
          expect(conflicts).toBeGreaterThan(0);
        },
        slow,
      );

      it(
        'concurrent appends to different streams all land in $all',
        async () => {
          const head = await headPosition(store);
          const category = uniqueCategory();
          const results = await Promise.all(
            Array.from({ length: 50 }, (_, i) => store.append(streamName(category, String(i)), someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM })),
          );
          expect(results.every((r) => r.nextExpectedRevision === 1n)).toBe(true);
          const all = await readAllAfter(store, head, categoryFilter(category));
          expect(all).toHaveLength(100);
          expect(new Set(results.map((r) => r.position)).size).toBe(50);
        },
        slow,
      );
    });

    describe('deletion', () => {
      it('tombstone: reads and appends then fail with StreamDeletedError, whatever the expected revision', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
        await store.tombstoneStream(stream, { expectedRevision: 1n });
        for (const expectedRevision of [ExpectedRevision.ANY, ExpectedRevision.NO_STREAM, 1n]) {
          const error = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision }));
          expect(error).toBeInstanceOf(StreamDeletedError);
          expect(error).toMatchObject({ code: 'STREAM_DELETED', streamName: stream });
        }
        expect(await rejectionOf(store.readStream(stream))).toBeInstanceOf(StreamDeletedError);
        expect(await rejectionOf(store.tombstoneStream(stream))).toBeInstanceOf(StreamDeletedError);
      });

      it('delete and tombstone check the expected revision', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(await rejectionOf(store.deleteStream(stream, { expectedRevision: 0n }))).toMatchObject({ expected: 0n, actual: 1n });
        expect(await rejectionOf(store.tombstoneStream(stream, { expectedRevision: ExpectedRevision.NO_STREAM }))).toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        expect((await store.readStream(stream)).events).toHaveLength(2);
      });

      it('soft delete: the stream reads as missing, no_stream recreates it and revisions continue', async () => {
        const stream = uniqueStream();
        await store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
        await store.deleteStream(stream, { expectedRevision: 2n });
        expect(await store.readStream(stream)).toEqual({ streamExists: false, currentRevision: 'no_stream', events: [] });
        expect(await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.STREAM_EXISTS }))).toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        const recreated = await store.append(stream, [anEvent('Again')], { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(recreated.nextExpectedRevision).toBe(3n);
        const read = await store.readStream(stream);
        expect(read.events.map((e) => [e.type, e.revision])).toEqual([['Again', 3n]]);
        expect(read.currentRevision).toBe(3n);
      });

      it('soft-deleting a stream never written, expecting any or no_stream, succeeds and changes nothing', async () => {
        const stream = uniqueStream();
        await store.deleteStream(stream);
        await store.deleteStream(stream, { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(await rejectionOf(store.deleteStream(stream, { expectedRevision: 0n }))).toMatchObject({ expected: 0n, actual: 'no_stream' });
        expect(await store.readStream(stream)).toEqual({ streamExists: false, currentRevision: 'no_stream', events: [] });
        const created = await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
        expect(created.nextExpectedRevision).toBe(0n);
      });
    });

    describe('store identity', () => {
      it('is a UUID with a creation time, the same on every call, also for concurrent first callers', async () => {
        const before = Date.now();
        const answers = await Promise.all([store.storeIdentity(), store.storeIdentity(), store.storeIdentity()]);
        const [first] = answers;
        expect(first?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(first?.createdAt).toBeInstanceOf(Date);
        expect(first?.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
        for (const answer of answers) expect(answer).toEqual(first);
        expect(await store.storeIdentity()).toEqual(first);
        // Not from the future, and (a store made for this test, or a shared one) not older than a sane bound.
        expect(first?.createdAt.getTime()).toBeGreaterThan(before - 365 * 24 * 3_600_000);
      });

      it('is not an event: recording and reading it adds nothing to $all', async () => {
        const head = await headPosition(store);
        const identity = await store.storeIdentity();
        const stream = uniqueStream();
        await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
        expect((await readAllAfter(store, head)).map((e) => e.streamName)).toEqual([stream]);
        expect(await store.storeIdentity()).toEqual(identity);
      });

      it('rejects with StoreClosedError after close()', async () => {
        const own = await open();
        await own.close();
        expect(await rejectionOf(own.storeIdentity())).toBeInstanceOf(StoreClosedError);
      });

      const restart = factory.reopen ? it : it.skip;
      restart('is kept across a restart', async () => {
        const identity = await store.storeIdentity();
        store = await reopen(store);
        expect(await store.storeIdentity()).toEqual(identity);
      });
    });

    describe('lifecycle', () => {
      it('calls after close() reject with StoreClosedError, and a waiting subscription ends with it', async () => {
        const own = await open();
        const stream = uniqueStream();
        await own.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
        const subscription = own.subscribeToStream(stream);
        const iterator = subscription[Symbol.asyncIterator]();
        await iterator.next();
        const waiting = iterator.next();
        await own.close();
        expect(await rejectionOf(waiting)).toBeInstanceOf(StoreClosedError);
        expect(await rejectionOf(own.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.ANY }))).toBeInstanceOf(StoreClosedError);
        expect(await rejectionOf(own.readStream(stream))).toBeInstanceOf(StoreClosedError);
        await own.close(); // idempotent
      });

      const restart = factory.reopen ? it : it.skip;
      restart('keeps appended events across a restart and resumes a subscription from a stored checkpoint', async () => {
        const category = uniqueCategory();
        const stream = streamName(category, '1');
        const events = someEvents(3);
        const result = await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
        const checkpoint = positionToToken((await store.readStream(stream)).events[1]!.position);

        store = await reopen(store);
        const read = await store.readStream(stream);
        expect(read.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
        expect(read.events[2]?.position).toBe(result.position);
        expect(await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: 1n }))).toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM })).toEqual(result);

        const subscription = store.subscribeToAll({ after: parsePosition(checkpoint), filter: categoryFilter(category) });
        const pull = puller(subscription);
        expect((await pull.take(1, live)).map((e) => e.id)).toEqual([events[2]?.id]);
        await store.append(stream, [anEvent('AfterRestart')], { expectedRevision: 2n });
        expect((await pull.take(1, live)).map((e) => e.type)).toEqual(['AfterRestart']);
        await subscription.close();
      });
    });
  });
}
