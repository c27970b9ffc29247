import { randomUUID } from 'node:crypto';
import type { EventData, EventMetadata } from '../port/event';
import type { EventFilter } from '../port/event-filter';
import type { EventStore } from '../port/event-store';
import type { RecordedEvent } from '../port/event';
import type { Position } from '../port/position';
import type { EventSubscription } from '../port/subscription';
import { scaled } from '../../../../test/support/time-scale';

/** A category no other test uses (dash-free), so tests can share one store (a real EventStoreDB). */
export function uniqueCategory(prefix = 'c'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** A stream `<uniqueCategory>-<id>`. */
export function uniqueStream(id: string = randomUUID()): string {
  return `${uniqueCategory()}-${id}`;
}

/** An event with a fresh id. */
export function anEvent(type = 'SomethingHappened', data: object = { value: 1 }, metadata?: EventMetadata): EventData {
  return { id: randomUUID(), type, data, ...(metadata ? { metadata } : {}) };
}

/** `n` events `Counted { n: i }` with fresh ids. */
export function someEvents(n: number, type = 'Counted', offset = 0): EventData[] {
  return Array.from({ length: n }, (_, i) => anEvent(type, { n: i + offset }));
}

/** Position of the last event of `$all`, or `undefined` when the store is empty. */
export async function headPosition(store: EventStore): Promise<Position | undefined> {
  for await (const event of store.readAll({ direction: 'backwards', maxCount: 1 })) return event.position;
  return undefined;
}

/** Every event of `$all` after `after` (exclusive) matching `filter`. */
export async function readAllAfter(store: EventStore, after: Position | undefined, filter?: EventFilter): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const event of store.readAll({ ...(after ? { fromPosition: after } : {}), ...(filter ? { filter } : {}) })) {
    if (after !== undefined && event.position === after) continue;
    out.push(event);
  }
  return out;
}

/**
 * Takes `count` events from a subscription, failing after `timeoutMs` with how
 * many arrived. Does not close the subscription.
 */
export async function take(subscription: EventSubscription, count: number, unscaledTimeoutMs = 5_000): Promise<RecordedEvent[]> {
  const timeoutMs = scaled(unscaledTimeoutMs);
  const out: RecordedEvent[] = [];
  if (count === 0) return out;
  const iterator = subscription[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms with ${out.length}/${count} events`)), timeoutMs);
  });
  try {
    while (out.length < count) {
      const next = await Promise.race([iterator.next(), deadline]);
      if (next.done) throw new Error(`subscription ended after ${out.length}/${count} events`);
      out.push(next.value);
    }
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An iterator over a subscription that can be pulled repeatedly by
 * {@link take}-like calls (a subscription can be iterated only once).
 */
export function puller(subscription: EventSubscription): {
  take(count: number, timeoutMs?: number): Promise<RecordedEvent[]>;
  /** Resolves `true` if another event arrives within `ms`, `false` otherwise (the pending pull is kept). */
  nothingWithin(ms: number): Promise<boolean>;
} {
  const iterator = subscription[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<RecordedEvent>> | undefined;
  const pull = (): Promise<IteratorResult<RecordedEvent>> => (pending ??= iterator.next());
  return {
    async take(count, unscaledTimeoutMs = 5_000) {
      const timeoutMs = scaled(unscaledTimeoutMs);
      const out: RecordedEvent[] = [];
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        while (out.length < count) {
          const next = await Promise.race([pull(), deadline]);
          if (next === 'timeout') throw new Error(`timed out after ${timeoutMs} ms with ${out.length}/${count} events`);
          pending = undefined;
          if (next.done) throw new Error(`subscription ended after ${out.length}/${count} events`);
          out.push(next.value);
        }
        return out;
      } finally {
        clearTimeout(timer);
      }
    },
    async nothingWithin(ms) {
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<'quiet'>((resolve) => {
        timer = setTimeout(() => resolve('quiet'), ms);
      });
      const result = await Promise.race([pull(), quiet]);
      clearTimeout(timer);
      return result === 'quiet';
    },
  };
}

/** Polls `probe` until it returns true or the deadline passes. */
export async function eventually(probe: () => boolean | Promise<boolean>, unscaledTimeoutMs = 5_000, everyMs = 10): Promise<void> {
  const timeoutMs = scaled(unscaledTimeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The rejection of a promise (fails if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** The error thrown by `fn` (sync or async), failing if none is. */
export async function errorOf(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, but none was thrown');
}
