import type { RecordedEvent } from '../port/event';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { positionFromParts } from '../port/position';
import { ChangeNotifier } from './change-notifier';
import type { SubscriptionPage } from './pull-subscription';
import { PullSubscription } from './pull-subscription';

const recorded = (n: number): RecordedEvent => ({
  streamName: 'test-1',
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'T',
  revision: BigInt(n),
  position: positionFromParts({ commit: BigInt(n), prepare: BigInt(n) }),
  data: { n },
  metadata: {},
  created: new Date(0),
});

/** A fake store of `stored` events whose reads are counted. */
function source(stored: number) {
  const state = { stored, reads: [] as Array<{ cursor: number; limit: number }>, closed: false, failNext: undefined as Error | undefined };
  const notifier = new ChangeNotifier();
  return {
    state,
    notifier,
    isClosed: () => state.closed,
    readPage(cursor: number, limit: number): SubscriptionPage<number> {
      state.reads.push({ cursor, limit });
      if (state.failNext) throw state.failNext;
      const events = [];
      for (let n = cursor + 1; n <= Math.min(state.stored, cursor + limit); n++) events.push(recorded(n));
      return { events, next: cursor + events.length, exhausted: events.length < limit };
    },
  };
}

describe('PullSubscription (the catch-up engine of the embedded and in-memory stores)', () => {
  it('back-pressure: reads a page only when the consumer has taken the previous one', async () => {
    const s = source(10_000);
    const sub = new PullSubscription(s, 0, 10, undefined);
    const it = sub[Symbol.asyncIterator]();
    await it.next();
    expect(s.state.reads).toHaveLength(1); // one page of 10 held, not 10,000 events
    for (let i = 0; i < 9; i++) await it.next();
    expect(s.state.reads).toHaveLength(1);
    await it.next(); // the 11th event needs the second page
    expect(s.state.reads).toEqual([
      { cursor: 0, limit: 10 },
      { cursor: 10, limit: 10 },
    ]);
    await sub.close();
  });

  it('switches from history to live with no gap, waking on notification', async () => {
    const s = source(3);
    const sub = new PullSubscription(s, 1, 2, undefined);
    const it = sub[Symbol.asyncIterator]();
    expect((await it.next()).value?.revision).toBe(2n);
    expect((await it.next()).value?.revision).toBe(3n);
    const waiting = it.next();
    await new Promise((r) => setImmediate(r));
    expect(s.notifier.waiting).toBe(1);
    s.state.stored = 5;
    s.notifier.notify();
    expect((await waiting).value?.revision).toBe(4n);
    expect((await it.next()).value?.revision).toBe(5n);
    await sub.close();
    expect(s.notifier.waiting).toBe(0);
  });

  it('does not miss an append that lands between its read and its wait', async () => {
    const s = source(1);
    const sub = new PullSubscription(s, 0, 5, undefined);
    const it = sub[Symbol.asyncIterator]();
    const original = s.readPage.bind(s);
    let first = true;
    s.readPage = (cursor, limit) => {
      const page = original(cursor, limit);
      if (first) {
        first = false;
        s.state.stored = 2; // appended right after the read...
        s.notifier.notify(); // ...and notified before the subscription waits
      }
      return page;
    };
    expect((await it.next()).value?.revision).toBe(1n);
    expect((await it.next()).value?.revision).toBe(2n);
    await sub.close();
  });

  it('ends on abort, rejects with the store error and is then closed', async () => {
    const controller = new AbortController();
    const s = source(0);
    const sub = new PullSubscription(s, 0, 5, controller.signal);
    const pending = sub[Symbol.asyncIterator]().next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });

    const failing = source(5);
    failing.state.failNext = new Error('boom');
    const sub2 = new PullSubscription(failing, 0, 5, undefined);
    await expect(sub2[Symbol.asyncIterator]().next()).rejects.toThrow('boom');
    expect(sub2.closed).toBe(true);

    const closedStore = source(5);
    closedStore.state.closed = true;
    await expect(new PullSubscription(closedStore, 0, 5, undefined)[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it('can be iterated only once', () => {
    const sub = new PullSubscription(source(0), 0, 5, undefined);
    sub[Symbol.asyncIterator]();
    expect(() => sub[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});
