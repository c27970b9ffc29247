import type { EventStore } from '../port/event-store';
import { ExpectedRevision } from '../port/expected-revision';
import { InvalidEventError } from '../port/errors/invalid-event.error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { categoryFilter } from '../port/event-filter';
import type { MultiStreamAppend } from '../port/multi-stream-append';
import { hasMultiStreamAppend } from '../port/multi-stream-append';
import { comparePositions } from '../port/position';
import { streamName } from '../stream-name';
import { anEvent, headPosition, readAllAfter, rejectionOf, someEvents, take, uniqueCategory } from './contract-helpers';

/**
 * The contract of {@link MultiStreamAppend}, part of the store contract
 * (`describeEventStoreContract`): run when the adapter declares the
 * capability, else the suite checks that the store does not claim it.
 */
export function describeMultiStreamAppendContract(currentStore: () => EventStore, declared: boolean, slowTestTimeoutMs: number): void {
  describe('append to several streams in one commit', () => {
    it(`is ${declared ? '' : 'not '}offered by this store`, () => {
      expect(hasMultiStreamAppend(currentStore())).toBe(declared);
    });

    if (!declared) return;

    const store = () => currentStore() as EventStore & MultiStreamAppend;

    it('appends every part, each at its expected revision, its events one after the other in $all, in the order of the parts', async () => {
      const category = uniqueCategory();
      const [run, audit] = [streamName(category, 'run'), streamName(category, 'audit')];
      await store().append(run, someEvents(1), { expectedRevision: ExpectedRevision.NO_STREAM });
      const head = await headPosition(store());
      const results = await store().appendToStreams([
        { streamName: run, events: someEvents(2, 'Counted', 1), expectedRevision: 0n },
        { streamName: audit, events: [anEvent('Audited', { step: 1 })], expectedRevision: ExpectedRevision.NO_STREAM },
      ]);
      expect(results.map((r) => r.nextExpectedRevision)).toEqual([2n, 0n]);
      const all = await readAllAfter(store(), head, categoryFilter(category));
      expect(all.map((e) => [e.streamName, e.revision, e.type])).toEqual([
        [run, 1n, 'Counted'],
        [run, 2n, 'Counted'],
        [audit, 0n, 'Audited'],
      ]);
      expect(all[1]?.position).toEqual(results[0]?.position);
      expect(all[2]?.position).toEqual(results[1]?.position);
      expect((await store().readStream(run)).events.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2]);
    });

    it('one part refused refuses them all: nothing of any part is written, the error names the refused stream', async () => {
      const category = uniqueCategory();
      const [a, b] = [streamName(category, 'a'), streamName(category, 'b')];
      await store().append(b, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
      const head = await headPosition(store());
      const error = await rejectionOf(
        store().appendToStreams([
          { streamName: a, events: [anEvent()], expectedRevision: ExpectedRevision.NO_STREAM },
          { streamName: b, events: [anEvent()], expectedRevision: 0n },
        ]),
      );
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamName: b, expected: 0n, actual: 1n });
      expect((await store().readStream(a)).streamExists).toBe(false);
      expect(await readAllAfter(store(), head, categoryFilter(category))).toEqual([]);

      await store().tombstoneStream(b);
      expect(await rejectionOf(store().appendToStreams([{ streamName: a, events: [anEvent()], expectedRevision: ExpectedRevision.ANY }, { streamName: b, events: [anEvent()], expectedRevision: ExpectedRevision.ANY }]))).toBeInstanceOf(StreamDeletedError);
      expect((await store().readStream(a)).streamExists).toBe(false);
    });

    it('the same call again (same ids, same expected revisions) answers the same results and writes nothing', async () => {
      const category = uniqueCategory();
      const parts = [
        { streamName: streamName(category, 'a'), events: someEvents(2), expectedRevision: ExpectedRevision.NO_STREAM },
        { streamName: streamName(category, 'b'), events: someEvents(1), expectedRevision: ExpectedRevision.NO_STREAM },
      ] as const;
      const first = await store().appendToStreams(parts);
      const head = await headPosition(store());
      expect(await store().appendToStreams(parts)).toEqual(first);
      expect(await readAllAfter(store(), head, categoryFilter(category))).toEqual([]);
    });

    it('bad input is refused with an error naming it, and nothing is written', async () => {
      const category = uniqueCategory();
      const a = streamName(category, 'a');
      expect(await rejectionOf(store().appendToStreams([]))).toMatchObject({ option: 'appends' });
      expect(await rejectionOf(store().appendToStreams([]))).toBeInstanceOf(InvalidOptionError);
      const twice = await rejectionOf(
        store().appendToStreams([
          { streamName: a, events: [anEvent()], expectedRevision: ExpectedRevision.ANY },
          { streamName: a, events: [anEvent()], expectedRevision: ExpectedRevision.ANY },
        ]),
      );
      expect(twice).toMatchObject({ option: 'appends[1].streamName' });
      const badEvent = await rejectionOf(
        store().appendToStreams([
          { streamName: a, events: [anEvent()], expectedRevision: ExpectedRevision.ANY },
          { streamName: streamName(category, 'b'), events: [{ id: 'not-a-uuid', type: 'T', data: {} }], expectedRevision: ExpectedRevision.ANY },
        ]),
      );
      expect(badEvent).toBeInstanceOf(InvalidEventError);
      expect((await store().readStream(a)).streamExists).toBe(false);
    });

    it('a live subscriber to $all sees every part, in order', async () => {
      const category = uniqueCategory();
      const subscription = store().subscribeToAll({ after: await headPosition(store()), filter: categoryFilter(category) });
      try {
        await store().appendToStreams([
          { streamName: streamName(category, 'a'), events: someEvents(2), expectedRevision: ExpectedRevision.NO_STREAM },
          { streamName: streamName(category, 'b'), events: someEvents(1), expectedRevision: ExpectedRevision.NO_STREAM },
        ]);
        const seen = await take(subscription, 3);
        expect(seen.map((e) => e.streamName)).toEqual([streamName(category, 'a'), streamName(category, 'a'), streamName(category, 'b')]);
        expect(comparePositions(seen[0]?.position as never, seen[2]?.position as never)).toBeLessThan(0);
      } finally {
        await subscription.close();
      }
    });

    it(
      'races with single-stream appends on its streams: each stream keeps every event once, and exactly one of two racing on a revision wins',
      async () => {
        const category = uniqueCategory();
        const [run, audit] = [streamName(category, 'run'), streamName(category, 'audit')];
        await store().append(run, someEvents(1), { expectedRevision: ExpectedRevision.NO_STREAM });
        const outcomes = await Promise.allSettled([
          store().appendToStreams([
            { streamName: run, events: [anEvent('Both')], expectedRevision: 0n },
            { streamName: audit, events: [anEvent('Both')], expectedRevision: ExpectedRevision.NO_STREAM },
          ]),
          store().append(run, [anEvent('Alone')], { expectedRevision: 0n }),
        ]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const runEvents = (await store().readStream(run)).events;
        const auditRead = await store().readStream(audit);
        if (outcomes[0].status === 'fulfilled') {
          expect(runEvents.map((e) => e.type)).toEqual(['Counted', 'Both']);
          expect(auditRead.events.map((e) => e.type)).toEqual(['Both']);
        } else {
          expect(runEvents.map((e) => e.type)).toEqual(['Counted', 'Alone']);
          expect(auditRead.streamExists).toBe(false);
        }
        // Many at once, on distinct streams: all land.
        const many = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store().appendToStreams([
              { streamName: streamName(category, `r${i}`), events: someEvents(2), expectedRevision: ExpectedRevision.NO_STREAM },
              { streamName: streamName(category, `a${i}`), events: someEvents(1), expectedRevision: ExpectedRevision.NO_STREAM },
            ]),
          ),
        );
        expect(many.flat().map((r) => r.nextExpectedRevision)).toEqual(Array.from({ length: 20 }, () => [1n, 0n]).flat());
      },
      slowTestTimeoutMs,
    );
  });
}
