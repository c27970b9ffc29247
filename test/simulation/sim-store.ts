import type {
  AppendOptions,
  AppendResult,
  DeleteStreamOptions,
  EventData,
  EventStore,
  EventSubscription,
  ReadAllOptions,
  ReadStreamOptions,
  ReadStreamResult,
  RecordedEvent,
  SubscribeToAllOptions,
  StoreIdentity,
  SubscribeToStreamOptions,
} from '@agent-ledger/event-store';
import { InMemoryEventStore, positionFromParts, StoreUnavailableError, StoreUnavailableReason } from '@agent-ledger/event-store';

/**
 * The in-memory event store of the simulation, wrapped: it counts appends
 * and stream lengths (for the scheduler and the execution ledger), and can be
 * "broken" (every append refused, as the SQLite store refuses them when
 * another connection holds its lock) while reads and subscriptions go on.
 */
export class SimStore implements EventStore {
  readonly inner: InMemoryEventStore;
  /** Appends stored so far. */
  appends = 0;
  /** Appends refused while broken. */
  refused = 0;
  broken = false;
  /**
   * A mutation for the checker's own tests: appends for which it answers true
   * are acknowledged and not stored (a store that loses events).
   */
  lose: ((events: readonly EventData[]) => boolean) | null = null;
  private readonly lengths = new Map<string, number>();

  constructor(now: () => number) {
    this.inner = new InMemoryEventStore({ now });
  }

  /** Events stored in `stream` so far (as this wrapper saw them appended). */
  lengthOf(stream: string): number {
    return this.lengths.get(stream) ?? 0;
  }

  storeIdentity(): Promise<StoreIdentity> {
    return this.inner.storeIdentity();
  }

  async append(streamName: string, events: readonly EventData[], options: AppendOptions): Promise<AppendResult> {
    if (this.broken) {
      await Promise.resolve();
      this.refused++;
      throw new StoreUnavailableError(StoreUnavailableReason.BUSY, 'the simulation holds the store (appends refused)');
    }
    if (this.lose?.(events) === true) {
      await Promise.resolve();
      return { nextExpectedRevision: 0n, position: positionFromParts({ commit: 0n, prepare: 0n }) };
    }
    const result = await this.inner.append(streamName, events, options);
    this.appends++;
    this.lengths.set(streamName, Math.max(this.lengthOf(streamName), Number(result.nextExpectedRevision) + 1));
    return result;
  }

  readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult> {
    return this.inner.readStream(streamName, options);
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return this.inner.readAll(options);
  }

  subscribeToStream(streamName: string, options?: SubscribeToStreamOptions): EventSubscription {
    return this.inner.subscribeToStream(streamName, options);
  }

  subscribeToAll(options?: SubscribeToAllOptions): EventSubscription {
    return this.inner.subscribeToAll(options);
  }

  deleteStream(streamName: string, options?: DeleteStreamOptions): Promise<void> {
    return this.inner.deleteStream(streamName, options);
  }

  tombstoneStream(streamName: string, options?: DeleteStreamOptions): Promise<void> {
    return this.inner.tombstoneStream(streamName, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
