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
  StreamAppend,
  SubscribeToAllOptions,
  StoreIdentity,
  SubscribeToStreamOptions,
} from '@agent-ledger/event-store';
import { InMemoryEventStore, positionFromParts, StoreUnavailableError, StoreUnavailableReason } from '@agent-ledger/event-store';

/** What a lost append is answered (the lossy mutation). */
const LOST: AppendResult = { nextExpectedRevision: 0n, position: positionFromParts({ commit: 0n, prepare: 0n }) };

/**
 * The in-memory event store of the simulation, wrapped: it counts appends
 * and stream lengths (for the scheduler and the execution ledger), and can be
 * "broken" (every append refused, as the SQLite store refuses them when
 * another connection holds its lock) while reads and subscriptions go on.
 * It appends to several streams in one commit (`appendToStreams`), as the
 * embedded store does: a world that keeps the audit streams in the run store
 * then stores a step's records together, and `auditBroken` refuses every
 * write that holds an audit event (alone or with the run's), the moments the
 * one-commit append and the audit after it can fail.
 */
export class SimStore implements EventStore {
  readonly inner: InMemoryEventStore;
  /** Appends stored so far. */
  appends = 0;
  /** Appends refused while broken. */
  refused = 0;
  broken = false;
  /** Refuse every append that writes to an audit stream (`audit-...`), alone or with other streams. */
  auditBroken = false;
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
    await this.refuseIfBroken([streamName]);
    if (this.lose?.(events) === true) {
      await Promise.resolve();
      return LOST;
    }
    const result = await this.inner.append(streamName, events, options);
    this.stored(streamName, result);
    return result;
  }

  /** Several streams in one commit; with the lossy mutation, the parts it loses are acknowledged and not stored, the others are. */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    await this.refuseIfBroken(appends.map((part) => part.streamName));
    const kept = appends.filter((part) => this.lose?.(part.events) !== true);
    const results = kept.length === 0 ? [] : await this.inner.appendToStreams(kept);
    kept.forEach((part, i) => this.stored(part.streamName, results[i] as AppendResult));
    return appends.map((part) => (kept.includes(part) ? (results[kept.indexOf(part)] as AppendResult) : LOST));
  }

  private async refuseIfBroken(streams: readonly string[]): Promise<void> {
    if (!this.broken && !(this.auditBroken && streams.some((name) => name.startsWith('audit-')))) return;
    await Promise.resolve();
    this.refused++;
    throw new StoreUnavailableError(StoreUnavailableReason.BUSY, 'the simulation holds the store (appends refused)');
  }

  private stored(streamName: string, result: AppendResult): void {
    this.appends++;
    this.lengths.set(streamName, Math.max(this.lengthOf(streamName), Number(result.nextExpectedRevision) + 1));
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
