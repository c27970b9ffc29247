import { Readable } from 'node:stream';
import type { RecordedEvent } from '../port/event';
import { EventStoreError } from '../port/errors/event-store-error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError } from '../port/errors/store-unavailable.error';
import type { ClientResolvedEvent } from './eventstoredb-event-mapping';
import type { ClientCatchUpSubscription, EventStoreDbSubscriptionSource } from './eventstoredb-subscription';
import { EventStoreDbSubscription } from './eventstoredb-subscription';
import { translateEventStoreDbError } from './translate-eventstoredb-error';

function resolved(revision: number, type = 'Counted'): ClientResolvedEvent {
  return {
    event: {
      streamId: 'test-1',
      id: `00000000-0000-4000-8000-${String(revision).padStart(12, '0')}`,
      revision: BigInt(revision),
      type,
      created: new Date(0),
      data: { n: revision },
      metadata: undefined,
      isJson: true,
      position: { commit: BigInt(100 + revision), prepare: BigInt(100 + revision) },
    },
  } as ClientResolvedEvent;
}

/** A client subscription double: produces events on demand (like a paused gRPC call), counting what it produced. */
class FakeClientSubscription extends Readable implements ClientCatchUpSubscription {
  produced = 0;
  unsubscribed = false;

  constructor(
    highWaterMark: number,
    private readonly from: number,
    private readonly until: number = Number.POSITIVE_INFINITY,
  ) {
    super({ objectMode: true, highWaterMark });
  }

  override _read(): void {
    const revision = this.from + this.produced;
    if (revision >= this.until) return; // live and idle: nothing more for now
    this.produced++;
    this.push(resolved(revision));
  }

  async unsubscribe(): Promise<void> {
    this.unsubscribed = true;
  }
}

const ticks = async (n = 20): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function sourceOf(open: (after: bigint | undefined, highWaterMark: number) => ClientCatchUpSubscription): EventStoreDbSubscriptionSource<bigint> & {
  readonly opened: Array<bigint | undefined>;
} {
  const opened: Array<bigint | undefined> = [];
  return {
    opened,
    operation: 'subscribeToStream of test-1',
    open: (after, highWaterMark) => {
      opened.push(after);
      return open(after, highWaterMark);
    },
    cursorOf: (event: RecordedEvent) => event.revision,
    translate: (error) => translateEventStoreDbError(error, { operation: 'subscribeToStream', streamName: 'test-1' }),
  };
}

const reconnect = { timeoutMs: 1_000, initialDelayMs: 1, maxDelayMs: 5 };
const unavailable = (): Error => Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 });

describe('EventStoreDbSubscription (the pull bridge over the client subscription)', () => {
  it('holds at most batchSize events of a slow consumer: the client stream is read only when the consumer pulls', async () => {
    const fakes: FakeClientSubscription[] = [];
    const source = sourceOf((after, highWaterMark) => {
      const fake = new FakeClientSubscription(highWaterMark, 0);
      fakes.push(fake);
      return fake;
    });
    const subscription = new EventStoreDbSubscription(source, undefined, 4, reconnect, undefined, () => undefined);
    const iterator = subscription[Symbol.asyncIterator]();
    await iterator.next();
    await ticks();
    const fake = fakes[0] as FakeClientSubscription;
    expect(fake.produced).toBeLessThanOrEqual(1 + 4 + 1);
    for (let i = 0; i < 50; i++) await iterator.next();
    await ticks();
    expect(fake.produced).toBeLessThanOrEqual(51 + 4 + 1);
    await subscription.close();
    expect(fake.unsubscribed).toBe(true);
  });

  it('resubscribes strictly after the last delivered event when the connection is lost, and delivers buffered events first', async () => {
    const fakes: FakeClientSubscription[] = [];
    const source = sourceOf((after, highWaterMark) => {
      const from = after === undefined ? 0 : Number(after) + 1;
      const fake = new FakeClientSubscription(highWaterMark, from, fakes.length === 0 ? 3 : 6);
      fakes.push(fake);
      return fake;
    });
    const subscription = new EventStoreDbSubscription(source, undefined, 8, reconnect, undefined, () => undefined);
    const iterator = subscription[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.revision).toBe(0n);
    await ticks();
    fakes[0]?.emit('error', unavailable());
    const rest: bigint[] = [];
    for (let i = 0; i < 5; i++) rest.push(((await iterator.next()).value as RecordedEvent).revision);
    expect(rest).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(source.opened).toEqual([undefined, 2n]);
    expect(fakes[0]?.unsubscribed).toBe(true);
    expect(() => fakes[0]?.emit('error', unavailable())).not.toThrow(); // an error listener stays attached
    await subscription.close();
  });

  it('ends with StoreUnavailableError when resubscribing keeps failing for reconnect.timeoutMs', async () => {
    const source = sourceOf((_after, highWaterMark) => {
      const fake = new FakeClientSubscription(highWaterMark, 0, 0);
      setImmediate(() => fake.emit('error', unavailable()));
      return fake;
    });
    const subscription = new EventStoreDbSubscription(source, 7n, 8, { timeoutMs: 50, initialDelayMs: 1, maxDelayMs: 10 }, undefined, () => undefined);
    const iterator = subscription[Symbol.asyncIterator]();
    const error = await iterator.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(source.opened.length).toBeGreaterThan(1);
    expect(source.opened.every((after) => after === 7n)).toBe(true);
    expect(subscription.closed).toBe(true);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('ends at once with the translated error on a failure that is not a connection loss', async () => {
    const source = sourceOf((_after, highWaterMark) => {
      const fake = new FakeClientSubscription(highWaterMark, 0, 0);
      setImmediate(() => fake.emit('error', Object.assign(new Error('13 INTERNAL: boom'), { code: 13 })));
      return fake;
    });
    const subscription = new EventStoreDbSubscription(source, undefined, 8, reconnect, undefined, () => undefined);
    const error = await subscription[Symbol.asyncIterator]()
      .next()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(StoreFailureError);
    expect(error).toBeInstanceOf(EventStoreError);
    expect(source.opened).toHaveLength(1);
  });

  it('opens nothing until the first pull, and ends on its abort signal', async () => {
    const source = sourceOf((_after, highWaterMark) => new FakeClientSubscription(highWaterMark, 0, 0));
    const controller = new AbortController();
    let finished = 0;
    const subscription = new EventStoreDbSubscription(source, undefined, 8, reconnect, controller.signal, () => finished++);
    expect(source.opened).toHaveLength(0);
    const pending = subscription[Symbol.asyncIterator]().next();
    await ticks(2);
    expect(source.opened).toHaveLength(1);
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(finished).toBe(1);
  });
});
