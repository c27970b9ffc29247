import { randomUUID } from 'node:crypto';
import type { StreamView } from '../core/append-decision';
import { assertDeleteAllowed, decideAppend } from '../core/append-decision';
import { ChangeNotifier } from '../core/change-notifier';
import { allSubscriptionPage, streamSubscriptionPage, subscribeToAllBySequence, subscribeToStreamBySequence } from '../core/sequence-subscriptions';
import { readAllBySequence } from '../core/sequence-reads';
import type { StoredEventRow } from '../core/stored-event-row';
import type { StreamState } from '../core/stream-reads';
import { readStreamRows } from '../core/stream-reads';
import type { EventData, RecordedEvent } from '../port/event';
import type { AppendOptions, AppendResult, DeleteStreamOptions, EventStore } from '../port/event-store';
import type { MultiStreamAppend, StreamAppend } from '../port/multi-stream-append';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { positionFromParts } from '../port/position';
import type { StoreIdentity } from '../port/store-identity';
import type { ReadAllOptions, ReadStreamOptions, ReadStreamResult } from '../port/read-options';
import { Direction } from '../port/read-options';
import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from '../port/subscription';
import { assertValidStreamName } from '../stream-name';
import type { PreparedAppend } from '../validation/validate-append';
import { prepareAppend, prepareStreamAppends } from '../validation/validate-append';
import { prepareDelete } from '../validation/validate-options';

interface MemoryStream extends StreamState {
  tombstoned: boolean;
  firstVisibleRevision: number;
  lastRevision: number;
  /** Rows by revision. */
  readonly rows: StoredEventRow[];
}

/** Options of {@link InMemoryEventStore}. */
export interface InMemoryEventStoreOptions {
  /**
   * The clock stamping `created`.
   * @default () => Date.now()
   */
  readonly now?: () => number;
}

/**
 * An event store held in memory, **for unit tests only**: it is never a
 * default, and everything is lost when the process ends. It implements the
 * port with the same rules as the embedded store (shared validation, append
 * decision and subscription engine) and passes the same contract suite.
 * Payloads are stored serialised, so callers cannot mutate stored events.
 */
export class InMemoryEventStore implements EventStore, MultiStreamAppend {
  private readonly log: StoredEventRow[] = [];
  private readonly streams = new Map<string, MemoryStream>();
  private readonly notifier = new ChangeNotifier();
  private readonly now: () => number;
  private closed = false;
  private readonly identity: StoreIdentity;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.identity = Object.freeze({ id: randomUUID(), createdAt: new Date(this.now()) });
  }

  /** A new identity for each instance (each is a new, empty store). */
  async storeIdentity(): Promise<StoreIdentity> {
    this.assertOpen();
    return this.identity;
  }

  async append(streamName: string, events: readonly EventData[], options: AppendOptions): Promise<AppendResult> {
    const [result] = await this.appendParts([prepareAppend(streamName, events, options)]);
    return result as AppendResult;
  }

  /** Appends to several streams at once ({@link MultiStreamAppend}). */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return this.appendParts(prepareStreamAppends(appends));
  }

  /** Decides every part, then writes them all, or throws the first refusal having written nothing. */
  private async appendParts(parts: readonly PreparedAppend[]): Promise<AppendResult[]> {
    this.assertOpen();
    await Promise.resolve(); // asynchronous like every real store: callers cannot rely on synchronous effects
    this.assertOpen();
    const decided = parts.map((part) => {
      const stream = this.streams.get(part.streamName);
      const decision = decideAppend(this.view(stream), part.events.map((e) => e.id), part.expectedRevision);
      if (decision.kind === 'deleted') throw new StreamDeletedError(part.streamName);
      if (decision.kind === 'conflict') throw new WrongExpectedRevisionError(part.streamName, part.expectedRevision, decision.actual);
      return { part, stream, decision };
    });
    let wrote = false;
    const results = decided.map(({ part, stream, decision }): AppendResult => {
      if (decision.kind === 'idempotent') {
        const row = stream?.rows[decision.lastRevision] as StoredEventRow;
        return { nextExpectedRevision: BigInt(decision.lastRevision), position: this.positionOf(row.position) };
      }
      wrote = true;
      const target = stream ?? { tombstoned: false, firstVisibleRevision: 0, lastRevision: -1, rows: [] };
      this.streams.set(part.streamName, target);
      const created = this.now();
      let revision = decision.firstRevision;
      for (const event of part.events) {
        const row: StoredEventRow = {
          position: this.log.length + 1,
          stream_name: part.streamName,
          revision,
          event_id: event.id,
          event_type: event.type,
          data: event.dataJson,
          metadata: event.metadataJson,
          created_at: created,
        };
        this.log.push(row);
        target.rows[revision] = row;
        revision++;
      }
      target.lastRevision = revision - 1;
      return { nextExpectedRevision: BigInt(target.lastRevision), position: this.positionOf(this.log.length) };
    });
    if (wrote) this.notifier.notify();
    return results;
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult> {
    assertValidStreamName(streamName);
    this.assertOpen();
    await Promise.resolve();
    const stream = this.streams.get(streamName);
    return readStreamRows(streamName, stream, options, (from, to, direction, limit) => {
      const rows = (stream as MemoryStream).rows.slice(from, to + 1);
      if (direction === Direction.BACKWARDS) rows.reverse();
      return rows.slice(0, limit);
    });
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return readAllBySequence((cursor, direction, limit) => this.pageOfLog(cursor, direction, limit), options, () => this.assertOpen());
  }

  subscribeToStream(streamName: string, options: SubscribeToStreamOptions = {}): EventSubscription {
    assertValidStreamName(streamName);
    this.assertOpen();
    return subscribeToStreamBySequence(options, {
      notifier: this.notifier,
      isClosed: () => this.closed,
      readPage: (cursor: number, limit: number) => {
        const stream = this.streams.get(streamName);
        if (!stream) return { events: [], next: cursor, exhausted: true };
        const from = Math.max(cursor + 1, stream.firstVisibleRevision);
        return streamSubscriptionPage(stream.rows.slice(from, from + limit), cursor, limit);
      },
    });
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): EventSubscription {
    this.assertOpen();
    return subscribeToAllBySequence(options, (filter) => ({
        notifier: this.notifier,
        isClosed: () => this.closed,
        readPage: (cursor: number, limit: number) => {
          return allSubscriptionPage(this.pageOfLog(cursor, Direction.FORWARDS, limit), cursor, limit, filter);
        },
    }));
  }

  async deleteStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    await this.delete(streamName, options, false);
  }

  async tombstoneStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    await this.delete(streamName, options, true);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.notifier.close();
    await Promise.resolve();
  }

  private async delete(streamName: string, options: DeleteStreamOptions, tombstone: boolean): Promise<void> {
    const expected = prepareDelete(streamName, options);
    this.assertOpen();
    await Promise.resolve();
    const stream = this.streams.get(streamName);
    assertDeleteAllowed(streamName, this.view(stream), expected);
    const target = stream ?? { tombstoned: false, firstVisibleRevision: 0, lastRevision: -1, rows: [] };
    if (tombstone) target.tombstoned = true;
    else target.firstVisibleRevision = target.lastRevision + 1;
    this.streams.set(streamName, target);
    this.notifier.notify();
  }

  private view(stream: MemoryStream | undefined): StreamView {
    const state = stream ?? { tombstoned: false, firstVisibleRevision: 0, lastRevision: -1, rows: [] };
    return {
      tombstoned: state.tombstoned,
      firstVisibleRevision: state.firstVisibleRevision,
      lastRevision: state.lastRevision,
      eventIdAt: (revision) => (revision >= state.firstVisibleRevision ? state.rows[revision]?.event_id : undefined),
      revisionOfEventId: (id) => {
        for (let r = state.firstVisibleRevision; r <= state.lastRevision; r++) if (state.rows[r]?.event_id === id) return r;
        return undefined;
      },
    };
  }

  private pageOfLog(cursor: number, direction: Direction, limit: number): StoredEventRow[] {
    if (direction === Direction.FORWARDS) return this.log.slice(Math.max(0, cursor), Math.max(0, cursor) + limit);
    const end = Math.min(this.log.length, cursor - 1); // positions < cursor are indexes < cursor - 1
    return this.log.slice(Math.max(0, end - limit), Math.max(0, end)).reverse();
  }

  private positionOf(sequence: number) {
    return positionFromParts({ commit: BigInt(sequence), prepare: BigInt(sequence) });
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }
}
