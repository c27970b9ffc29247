import type { RecordedEvent } from '../port/event';
import { StoreClosedError } from '../port/errors/store-closed.error';
import type { EventSubscription } from '../port/subscription';
import type { ChangeNotifier } from './change-notifier';

/** One page read by a subscription. */
export interface SubscriptionPage<Cursor> {
  /** Matching events, in order. */
  readonly events: readonly RecordedEvent[];
  /** Where the next page starts (after everything scanned, matched or not). */
  readonly next: Cursor;
  /** The page reached the end of what is stored right now. */
  readonly exhausted: boolean;
}

/** What a {@link PullSubscription} needs from its adapter. */
export interface SubscriptionSource<Cursor> {
  /** Reads at most `limit` stored events after `cursor` (an adapter may throw its translated errors). */
  readPage(cursor: Cursor, limit: number): SubscriptionPage<Cursor> | Promise<SubscriptionPage<Cursor>>;
  /** Wakes the subscription when something may have been appended. */
  readonly notifier: ChangeNotifier;
  /** Whether the store is closed. */
  isClosed(): boolean;
}

/**
 * The catch-up subscription engine shared by the embedded and in-memory
 * adapters: page through history, then wait for a change notification and page
 * again, forever. One cursor moves forward only, so the switch from history to
 * live has no gap and no duplicate. Pull-based: at most one page is held, and
 * the next one is read only when the consumer has taken the current one.
 */
export class PullSubscription<Cursor> implements EventSubscription, AsyncIterator<RecordedEvent> {
  private readonly abort = new AbortController();
  private buffer: readonly RecordedEvent[] = [];
  private index = 0;
  private ended = false;
  private iterated = false;
  private readonly detach: () => void;

  constructor(
    private readonly source: SubscriptionSource<Cursor>,
    private cursor: Cursor,
    private readonly batchSize: number,
    signal: AbortSignal | undefined,
  ) {
    const onAbort = (): void => void this.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detach = () => signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) this.finish();
  }

  get closed(): boolean {
    return this.ended;
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (this.iterated) throw new Error('A subscription can be iterated only once');
    this.iterated = true;
    return this;
  }

  async next(): Promise<IteratorResult<RecordedEvent>> {
    try {
      for (;;) {
        if (this.ended) return { done: true, value: undefined };
        const buffered = this.buffer[this.index];
        if (buffered !== undefined) {
          this.index++;
          return { done: false, value: buffered };
        }
        if (this.source.isClosed()) throw new StoreClosedError();
        const version = this.source.notifier.version;
        const page = await this.source.readPage(this.cursor, this.batchSize);
        if (this.ended) return { done: true, value: undefined };
        this.cursor = page.next;
        this.buffer = page.events;
        this.index = 0;
        if (page.events.length > 0) continue;
        if (page.exhausted) await this.source.notifier.wait(version, this.abort.signal);
        else await new Promise<void>((resolve) => setImmediate(resolve)); // a sparse filter: let others run between pages
      }
    } catch (error) {
      this.finish();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<RecordedEvent>> {
    await this.close();
    return { done: true, value: undefined };
  }

  close(): Promise<void> {
    this.finish();
    return Promise.resolve();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.buffer = [];
    this.abort.abort();
    this.detach();
  }
}
