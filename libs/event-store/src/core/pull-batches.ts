const WOULD_BLOCK = Symbol('wouldBlock');

/**
 * Groups the items of an async iterable into batches of at most `maxSize`,
 * pulling one item at a time: a batch is yielded when it is full, or as soon
 * as the next item is not immediately available (the source would wait), so
 * live events are not held back while history is read in full batches. With
 * `lingerMs`, a batch that is not full waits up to that long after its first
 * item for more (live events then share a batch). Nothing is read ahead while
 * the consumer handles a batch, except the one pending `next()`: back-pressure
 * is kept.
 */
export async function* pullBatches<T>(iterable: AsyncIterable<T>, maxSize: number, lingerMs = 0): AsyncGenerator<T[], void, undefined> {
  const iterator = iterable[Symbol.asyncIterator]();
  let batch: T[] = [];
  let batchStartedAt = 0;
  let pending: Promise<IteratorResult<T>> | null = null;
  try {
    for (;;) {
      pending ??= iterator.next();
      const result = batch.length === 0 ? await pending : await raceUntil(pending, batchStartedAt + lingerMs - Date.now());
      if (result === WOULD_BLOCK) {
        yield batch;
        batch = [];
        continue;
      }
      pending = null;
      if (result.done === true) {
        if (batch.length > 0) yield batch;
        return;
      }
      if (batch.length === 0) batchStartedAt = Date.now();
      batch.push(result.value);
      if (batch.length >= maxSize) {
        yield batch;
        batch = [];
      }
    }
  } finally {
    await iterator.return?.();
  }
}

/** The promise's result if it settles within `ms` (at least before the next turn of the event loop), else WOULD_BLOCK. */
function raceUntil<T>(promise: Promise<T>, ms: number): Promise<T | typeof WOULD_BLOCK> {
  if (ms <= 0) return raceNextTurn(promise);
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<typeof WOULD_BLOCK>((resolve) => {
    timer = setTimeout(() => resolve(WOULD_BLOCK), ms);
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

/** The promise's result if it settles before the next turn of the event loop, else WOULD_BLOCK. */
function raceNextTurn<T>(promise: Promise<T>): Promise<T | typeof WOULD_BLOCK> {
  let handle: NodeJS.Immediate | undefined;
  const turn = new Promise<typeof WOULD_BLOCK>((resolve) => {
    handle = setImmediate(() => resolve(WOULD_BLOCK));
  });
  return Promise.race([promise, turn]).finally(() => clearImmediate(handle));
}

/**
 * Lets timers and I/O run: a store that serves pages synchronously (the
 * embedded one) would otherwise keep a long catch-up on microtasks and starve
 * the rest of the process (HTTP requests, other runners) until it ends.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What {@link raceMicrotasks} returns when the promise did not settle in time. */
export const NOT_YET = Symbol('notYet');

/** How many microtasks an event at hand takes to arrive: a subscription's buffered event, or a page read from the embedded store, takes fewer. */
const MICROTASK_HOPS = 8;

/**
 * The promise's result if it settles within a few microtasks, else
 * {@link NOT_YET}. The promise stays observed: a later rejection is not an
 * unhandled one (the caller awaits it again).
 */
export async function raceMicrotasks<T>(promise: Promise<T>): Promise<T | typeof NOT_YET> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let hop = 0; hop < MICROTASK_HOPS && !settled; hop++) await null;
  return settled ? promise : NOT_YET;
}

/** Resolves after `ms`, or at once when `signal` is aborted (a back-off that a stop cuts short). */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
