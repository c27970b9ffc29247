import type { Readable } from 'node:stream';
import type { RecordedEvent } from '../port/event';
import type { EventStoreError } from '../port/errors/event-store-error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import type { EventSubscription } from '../port/subscription';
import type { ResolvedReconnectOptions } from './eventstoredb-options';
import type { ClientResolvedEvent } from './eventstoredb-event-mapping';
import { toRecordedEvent } from './eventstoredb-event-mapping';
import { isConnectionFailure } from './translate-eventstoredb-error';

/**
 * The client's catch-up subscription as the bridge uses it: an object-mode
 * `Readable` of resolved events (client 6.2.1's `Subscription` is a
 * `Transform` the gRPC call is piped into, so not reading from it pauses the
 * gRPC call: back-pressure all the way to the server).
 */
export interface ClientCatchUpSubscription extends Readable {
  /** Cancels the gRPC call. */
  unsubscribe(): Promise<void>;
}

/** What a {@link EventStoreDbSubscription} needs from the adapter. */
export interface EventStoreDbSubscriptionSource<Cursor> {
  /** For messages: `subscribeToStream of 'run-1'`, `subscribeToAll`. */
  readonly operation: string;
  /**
   * Opens a client subscription delivering the events strictly after `after`
   * (`undefined`: from the start), buffering at most `highWaterMark` events.
   */
  open(after: Cursor | undefined, highWaterMark: number): ClientCatchUpSubscription;
  /** The resume point an event stands for (its revision, or its position). */
  cursorOf(event: RecordedEvent): Cursor;
  /** Translates a driver error into the port's. */
  translate(error: unknown): EventStoreError;
}

interface Link {
  readonly subscription: ClientCatchUpSubscription;
  failure: unknown;
  ended: boolean;
  detach(): void;
}

const noop = (): void => undefined;

/**
 * Bridges the client's push-based catch-up subscription into the port's
 * pull-based {@link EventSubscription}.
 *
 * - **Back-pressure**: events are taken one by one with `read()` only when the
 *   consumer calls `next()`; the client's stream buffers at most `batchSize`
 *   events (its `highWaterMark`) and pauses the gRPC call beyond that.
 * - **Order, no gap, no duplicate**: the server delivers history then live on
 *   one call; the bridge remembers the last event it *delivered* and, when
 *   the call is lost (server stopped or restarted, leader change, raw gRPC
 *   `UNAVAILABLE`), resubscribes strictly after it, with a doubling delay,
 *   for at most `reconnect.timeoutMs` (the clock restarts when a
 *   resubscription is confirmed); then it ends with `StoreUnavailableError`.
 *   Client 6.2.1 reconnects its channel on the next call but never
 *   resubscribes by itself.
 * - Any other failure (the stream was tombstoned...) ends it with the
 *   translated port error. System records are skipped.
 * - The client's stream always has an `error` listener (an unhandled stream
 *   `error` would crash the process when the server stops).
 *
 * The client subscription is opened lazily, at the first `next()`.
 */
export class EventStoreDbSubscription<Cursor> implements EventSubscription, AsyncIterator<RecordedEvent> {
  private current: Link | undefined;
  private cursor: Cursor | undefined;
  private finished = false;
  private suspended = false;
  private terminal: EventStoreError | undefined;
  private iterated = false;
  private wake: (() => void) | undefined;
  private outageSince: number | undefined;
  private delayMs: number;
  private sleeping: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private readonly dropping = new Set<Promise<void>>();
  private readonly detachSignal: () => void;

  constructor(
    private readonly source: EventStoreDbSubscriptionSource<Cursor>,
    after: Cursor | undefined,
    private readonly batchSize: number,
    private readonly reconnect: ResolvedReconnectOptions,
    signal: AbortSignal | undefined,
    private readonly onFinish: (subscription: EventStoreDbSubscription<Cursor>) => void,
  ) {
    this.cursor = after;
    this.delayMs = reconnect.initialDelayMs;
    const onAbort = (): void => void this.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detachSignal = () => signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) this.finish();
  }

  get closed(): boolean {
    return this.finished;
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (this.iterated) throw new Error('A subscription can be iterated only once');
    this.iterated = true;
    return this;
  }

  async next(): Promise<IteratorResult<RecordedEvent>> {
    for (;;) {
      if (this.terminal !== undefined) {
        const error = this.terminal;
        this.terminal = undefined;
        throw error;
      }
      if (this.finished) return { done: true, value: undefined };
      if (this.suspended) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      const link = this.current ?? this.connect();
      if (link === undefined) continue;
      const item = link.subscription.read() as ClientResolvedEvent | null;
      if (item !== null) {
        let event: RecordedEvent | undefined;
        try {
          event = toRecordedEvent(item);
        } catch (error) {
          this.fail(this.source.translate(error));
          continue;
        }
        if (event === undefined) continue;
        this.cursor = this.source.cursorOf(event);
        this.connected();
        return { done: false, value: event };
      }
      if (link.failure !== undefined || link.ended) {
        await this.recover(link);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async return(): Promise<IteratorResult<RecordedEvent>> {
    await this.close();
    return { done: true, value: undefined };
  }

  /** Ends the subscription; a pending `next()` resolves `done`. Idempotent. */
  async close(): Promise<void> {
    this.terminal = undefined;
    this.finish();
    await Promise.all([...this.dropping]);
  }

  /**
   * Cancels the client subscription without ending this one: a pending
   * `next()` keeps waiting, and no resubscription happens, until
   * {@link terminate}. The store calls it before disposing its client.
   */
  async suspend(): Promise<void> {
    this.suspended = true;
    if (this.current !== undefined) this.drop(this.current);
    await Promise.all([...this.dropping]);
  }

  /** Ends the subscription with `error`: a pending (or the next) `next()` rejects with it, once. */
  terminate(error: EventStoreError): void {
    if (!this.finished) this.fail(error);
  }

  private connect(): Link | undefined {
    let subscription: ClientCatchUpSubscription;
    try {
      subscription = this.source.open(this.cursor, this.batchSize);
    } catch (error) {
      this.fail(this.source.translate(error));
      return undefined;
    }
    subscription.on('error', noop); // never without an error listener, even after detach
    const link: Link = { subscription, failure: undefined, ended: false, detach: noop };
    const poke = (): void => {
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    };
    const onError = (error: unknown): void => {
      if (link.failure === undefined) link.failure = error ?? new Error('subscription failed');
      poke();
    };
    const onEnd = (): void => {
      link.ended = true;
      poke();
    };
    const onConfirmation = (): void => this.connected();
    subscription.on('error', onError).on('end', onEnd).on('close', onEnd).on('readable', poke).on('confirmation', onConfirmation);
    link.detach = () => {
      subscription.off('error', onError).off('end', onEnd).off('close', onEnd).off('readable', poke).off('confirmation', onConfirmation);
    };
    this.current = link;
    return link;
  }

  private connected(): void {
    this.outageSince = undefined;
    this.delayMs = this.reconnect.initialDelayMs;
  }

  /** The client subscription failed or ended: resubscribe after a delay, or give up. */
  private async recover(link: Link): Promise<void> {
    const failure: unknown = link.failure;
    this.drop(link);
    if (failure !== undefined && !isConnectionFailure(failure)) {
      this.fail(this.source.translate(failure));
      return;
    }
    const now = Date.now();
    this.outageSince ??= now;
    if (now - this.outageSince >= this.reconnect.timeoutMs) {
      this.fail(
        new StoreUnavailableError(
          StoreUnavailableReason.CANNOT_OPEN,
          `${this.source.operation}: the server stayed unreachable for ${this.reconnect.timeoutMs} ms; resubscribe from the last processed event`,
          { cause: failure },
        ),
      );
      return;
    }
    await this.sleep(this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2 || 1, this.reconnect.maxDelayMs);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleeping = { timer, resolve: done };
    });
  }

  /** Stops using a client subscription: detaches, cancels the gRPC call, destroys the stream. */
  private drop(link: Link): void {
    if (this.current === link) this.current = undefined;
    link.detach();
    const dropped = link.subscription
      .unsubscribe()
      .catch(noop)
      .then(() => {
        link.subscription.destroy();
      });
    this.dropping.add(dropped);
    void dropped.finally(() => this.dropping.delete(dropped));
  }

  private fail(error: EventStoreError): void {
    this.terminal = error;
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.detachSignal();
    if (this.current !== undefined) this.drop(this.current);
    this.sleeping?.resolve();
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    this.onFinish(this);
  }
}
