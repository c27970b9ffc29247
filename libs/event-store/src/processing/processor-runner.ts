import { abortableDelay, NOT_YET, pullBatches, raceMicrotasks, yieldToEventLoop } from '../core/pull-batches';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import type { RecordedEvent } from '../port/event';
import type { EventFilter } from '../port/event-filter';
import type { EventStore } from '../port/event-store';
import type { Position } from '../port/position';
import { comparePositions } from '../port/position';
import { DEFAULT_BATCH_SIZE } from '../validation/limits';
import { eventFilter } from '../validation/validate-options';
import type { EventProcessor } from './event-processor';
import type { ProcessorStateStore } from './processor-state-store';
import { ProcessorStoreMismatchError } from './processor-store-mismatch.error';

/** What a runner does when its database was made from another store: refuse to start, or forget its processors' state and start over. */
export type ProcessorStoreMismatchPolicy = 'refuse' | 'reset';

/** What a runner tells `onError`. */
export interface ProcessorFailure {
  /** The runner's source name. */
  readonly source: string;
  /** Failures in a row (1 for the first since the last batch that committed). */
  readonly attempt: number;
  /** How long the runner waits before it reads from its checkpoints again; null when the failure is not retried (an `observe` hook failed after its batch committed). */
  readonly retryInMs: number | null;
}

/** Options of a {@link ProcessorRunner}. */
export interface ProcessorRunnerOptions {
  /** The store read. The runner never appends to it and never closes it. */
  readonly store: EventStore;
  /**
   * A stable name of the store (letters, digits, `.`, `_`, `-`), e.g. `runs`
   * or `audit`: checkpoints are kept per processor and source, since positions
   * of different stores are not comparable.
   */
  readonly source: string;
  /**
   * Where the checkpoints and the processors' state live (a
   * `ProcessorDatabase`), unless a processor is added with a store of its own
   * ({@link ProcessorRunner.add}). The runner never closes it.
   */
  readonly database: ProcessorStateStore;
  /** The processors fed, kept in `database`, each with its own checkpoint (more can be added by {@link ProcessorRunner.add} before the start). */
  readonly processors?: readonly EventProcessor[];
  /** Most events applied in one transaction, and the subscription's page size. @default 256 */
  readonly batchSize?: number;
  /** How long a live batch that is not full may wait for more events. 0 applies what is there at once. @default 0 */
  readonly batchLingerMs?: number;
  /** The first wait after a failure; it doubles with each failure in a row. @default 100 */
  readonly retryDelayMs?: number;
  /** The longest wait between two attempts. @default 5000 */
  readonly maxRetryDelayMs?: number;
  /** When the database recorded another store for this source. @default 'refuse' */
  readonly onStoreMismatch?: ProcessorStoreMismatchPolicy;
  /** Told about every failure (a batch rolled back, a subscription lost, an `observe` hook that threw). @default written to stderr */
  readonly onError?: (error: unknown, failure: ProcessorFailure) => void;
  /** Told about a reset of the database on a store mismatch. @default written to stderr */
  readonly log?: (message: string) => void;
  /** The clock of the identity record. @default Date.now */
  readonly now?: () => number;
}

/** Counters of a runner since it was created. */
export interface ProcessorRunnerStats {
  /** Whether it follows the store now. */
  readonly running: boolean;
  /** Batches committed. */
  readonly batches: number;
  /** Events of the batches committed (a batch rolled back and read again counts once). */
  readonly eventsRead: number;
  /** Events applied, by processor. */
  readonly applied: Readonly<Record<string, number>>;
  /** The most events in one batch so far. */
  readonly largestBatch: number;
  /**
   * Times it dropped its subscription and read again from the checkpoints
   * because a stored checkpoint was behind its cursor (moved back under it:
   * a rebuild swapped in, a reset). Not failures.
   */
  readonly resubscriptions: number;
  /** Failures so far (rolled-back batches, lost subscriptions, failed `observe` hooks). */
  readonly failures: number;
  /** The last failure's message. */
  readonly lastError: string | null;
  /** The position of the last event of the last committed batch. */
  readonly position: Position | null;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

interface Fed {
  readonly processor: EventProcessor;
  readonly matches: (event: RecordedEvent) => boolean;
}

/** The processors kept in one state store: one transaction per batch (or per deferred run of batches). */
interface StoreGroup {
  readonly store: ProcessorStateStore;
  readonly fed: Fed[];
  /** How long live events may wait before they are applied in this store (0: with each batch). */
  readonly deferMs: number;
  /** Events read, not applied in this store yet (deferred). */
  pending: RecordedEvent[];
  /** When the oldest pending event was read. */
  pendingSince: number | null;
  /** Where this store's state stands in the reading: the subscription's start, then the last event committed here. */
  cursor: Position | null;
  /** The last event its processors observed: an event read again (after a rewind) is not observed twice. */
  observedUpTo: Position | null;
}

/** Options of {@link ProcessorRunner.add}. */
export interface AddProcessorOptions {
  /**
   * How long live events may wait before they are applied in the processor's
   * state store (set by the store's first processor): the events of that
   * time are applied together, in one transaction of that store, while the
   * runner's other stores apply each batch at once. For read models that
   * share a runner with the queue: they batch under load without delaying
   * the queue. Applies to a runner that applies at once (`batchLingerMs` 0);
   * `catchUp()` and `stop()` apply what waits. @default 0
   */
  readonly deferMs?: number;
}

/** A processor's stored checkpoint is behind the runner's cursor: the batch is rolled back and the runner reads again from the checkpoints. */
class CheckpointMoved extends Error {
  constructor(processor: string, store: string) {
    super(`The checkpoint of processor "${processor}" in ${store} moved back under the runner`);
  }
}

/**
 * The one follow loop of a process over one event store: a catch-up
 * subscription to `$all` from the lowest checkpoint of its processors, pulled
 * a batch at a time; each batch is applied by every processor (the events
 * after its own checkpoint that match its filter) and every checkpoint is
 * moved to the batch's last event, in ONE transaction per state store (the
 * processors' database, the read models' file...), the stores in the order
 * they were first added. Each store's transaction commits on its own, so that
 * one file's lock is never held while another's is awaited: when a later
 * store fails, the earlier ones keep the batch, and the next attempt, which
 * reads from the lowest checkpoint, gives it only to the processors that lack
 * it. After a crash, a batch is wholly applied in a store or not at all: no
 * event is applied twice, none is skipped. A processor that throws rolls its
 * store's part of the batch back (every processor's writes and checkpoint
 * there); the runner reads again from the checkpoints after a back-off
 * (doubling, capped), reporting each failure to `onError` and counting it. A
 * checkpoint found behind the runner's cursor (moved back under it: a rebuild
 * swapped in) makes it write nothing in that store for that batch and read
 * again from the checkpoints (a resubscription, not a failure).
 */
export class ProcessorRunner {
  /** The source name of the store it reads (see {@link ProcessorRunnerOptions.source}). */
  readonly source: string;
  private readonly fed: Fed[] = [];
  private readonly groups: StoreGroup[] = [];
  private readonly batchSize: number;
  private readonly batchLingerMs: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private abort = new AbortController();
  private loop: Promise<void> | null = null;
  private opened: Promise<void> | null = null;
  private stopping = false;
  private counters = { batches: 0, eventsRead: 0, largestBatch: 0, resubscriptions: 0, failures: 0 };
  private readonly applied: Record<string, number> = {};
  private lastError: string | null = null;
  private position: Position | null = null;
  private waiters: Array<{ readonly check: () => boolean; readonly resolve: () => void; readonly reject: (error: unknown) => void }> = [];

  constructor(private readonly options: ProcessorRunnerOptions) {
    if (typeof options.source !== 'string' || !NAME.test(options.source)) {
      throw new InvalidOptionError('source', 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    this.source = options.source;
    this.batchSize = integerOption(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE, 1);
    this.batchLingerMs = integerOption(options.batchLingerMs, 'batchLingerMs', 0, 0);
    this.retryDelayMs = integerOption(options.retryDelayMs, 'retryDelayMs', 100, 1);
    this.maxRetryDelayMs = integerOption(options.maxRetryDelayMs, 'maxRetryDelayMs', 5_000, this.retryDelayMs);
    if (options.onStoreMismatch !== undefined && options.onStoreMismatch !== 'refuse' && options.onStoreMismatch !== 'reset') {
      throw new InvalidOptionError('onStoreMismatch', `expected 'refuse' or 'reset', got ${String(options.onStoreMismatch)}`);
    }
    for (const processor of options.processors ?? []) this.add(processor);
  }

  /**
   * Adds a processor (before the runner is opened), kept in `stateStore`:
   * its checkpoint is there, and its `apply` runs inside that store's
   * transaction.
   * @param stateStore @default the runner's `database`
   * @throws InvalidOptionError when its name is invalid or taken (in any store of the runner), `deferMs` is invalid or differs from the store's, or the runner is already open
   */
  add(processor: EventProcessor, stateStore: ProcessorStateStore = this.options.database, options: AddProcessorOptions = {}): void {
    if (this.opened !== null) throw new InvalidOptionError('processors', `cannot add "${processor.name}" to a runner already opened`);
    if (typeof processor.name !== 'string' || !NAME.test(processor.name)) {
      throw new InvalidOptionError('processors.name', `expected 1 to 64 letters, digits, ".", "_" or "-", got ${JSON.stringify(processor.name)}`);
    }
    if (this.fed.some((f) => f.processor.name === processor.name)) throw new InvalidOptionError('processors.name', `"${processor.name}" is there twice`);
    const matcher = eventFilter(processor.filter)?.matches;
    const fed: Fed = { processor, matches: matcher === undefined ? () => true : (event) => matcher(event.streamName, event.type) };
    this.fed.push(fed);
    const group = this.groups.find((g) => g.store === stateStore);
    const deferMs = options.deferMs === undefined ? (group?.deferMs ?? 0) : integerOption(options.deferMs, 'deferMs', 0, 0);
    if (group !== undefined && group.deferMs !== deferMs) throw new InvalidOptionError('deferMs', `${stateStore.path} defers by ${group.deferMs} ms already, got ${deferMs}`);
    if (group === undefined) this.groups.push({ store: stateStore, fed: [fed], deferMs, pending: [], pendingSince: null, cursor: null, observedUpTo: null });
    else group.fed.push(fed);
    this.applied[processor.name] = 0;
  }

  /**
   * Checks that the database was made from this store (the identity it
   * recorded for the source, recorded now when there is none and no
   * checkpoint yet); on a mismatch it refuses, or, with `onStoreMismatch:
   * 'reset'`, resets every processor and forgets the source's checkpoints in
   * one transaction (logged). Idempotent; {@link start} calls it.
   *
   * @throws ProcessorStoreMismatchError on a mismatch with `refuse` (nothing written)
   */
  open(): Promise<void> {
    this.opened ??= this.checkIdentity().catch((error: unknown) => {
      this.opened = null;
      throw error;
    });
    return this.opened;
  }

  /**
   * Opens the runner ({@link open}) and starts following the store in the
   * background (idempotent).
   * @throws ProcessorStoreMismatchError as {@link open}
   */
  async start(): Promise<void> {
    await this.open();
    if (this.loop !== null) return;
    this.stopping = false;
    this.abort = new AbortController();
    this.loop = this.follow();
  }

  /**
   * Stops after the batch in progress (its transaction commits or not at
   * all); resolves when stopped. The database stays open.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    const loop = this.loop;
    this.loop = null;
    await loop;
    this.settleWaiters(new Error(`The processor runner of source "${this.source}" stopped before it caught up`));
  }

  /**
   * Applies everything stored now (reading `$all` to its current end), then
   * returns, without following: for tools and tests. A failure is thrown,
   * not retried. While the runner follows, it waits for it instead
   * ({@link caughtUp}): one reader at a time.
   */
  async catchUp(): Promise<void> {
    if (this.loop !== null) return this.caughtUp();
    await this.open();
    for (;;) {
      try {
        await this.readToEnd();
        return;
      } catch (error) {
        if (!(error instanceof CheckpointMoved)) throw error;
        this.counters.resubscriptions++;
      }
    }
  }

  private async readToEnd(): Promise<void> {
    const from = this.startReading();
    let first = true;
    const events = this.options.store.readAll({ fromPosition: from ?? 'start', filter: this.readFilter() });
    for await (const batch of pullBatches(events, this.batchSize)) {
      // readAll starts AT a position (inclusive): the checkpoint's own event was applied already.
      const fresh = first && batch[0] !== undefined && from !== null && comparePositions(batch[0].position, from) === 0 ? batch.slice(1) : batch;
      first = false;
      if (fresh.length > 0) this.applyBatch(fresh, false);
      await yieldToEventLoop();
    }
  }

  /** Starts a reading from the lowest checkpoint: every store's cursor there, nothing deferred. */
  private startReading(): Position | null {
    const from = this.resumePoint();
    for (const group of this.groups) {
      group.cursor = from;
      group.pending = [];
      group.pendingSince = null;
    }
    return from;
  }

  /**
   * Resolves once the runner, following, has read past every event stored
   * when it was called that its processors take (committed by it, or by
   * another process sharing its stores): for a host that shares a following
   * runner and needs its state up to date, without a second reader. While
   * the runner does not follow, it catches up instead ({@link catchUp}).
   * @throws the failure of a batch or of the subscription meanwhile (the runner retries it), or an Error when the runner stops first
   */
  async caughtUp(): Promise<void> {
    if (this.loop === null) return this.catchUp();
    let head: Position | null = null;
    for await (const event of this.options.store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1, filter: this.readFilter() })) head = event.position;
    if (head === null) return;
    const target = head;
    const check = (): boolean => this.groups.every(({ cursor }) => cursor !== null && comparePositions(cursor, target) >= 0);
    if (check()) return;
    await new Promise<void>((resolve, reject) => this.waiters.push({ check, resolve, reject }));
  }

  /** Resolves the {@link caughtUp} calls the cursor reached, or rejects them all. */
  private settleWaiters(failure?: unknown): void {
    if (this.waiters.length === 0) return;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (failure !== undefined) waiter.reject(failure);
      else if (waiter.check()) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  /** Counters and the last failure. */
  stats(): ProcessorRunnerStats {
    return { ...this.counters, applied: { ...this.applied }, running: this.loop !== null, lastError: this.lastError, position: this.position };
  }

  private async follow(): Promise<void> {
    let attempt = 0;
    while (!this.stopping) {
      try {
        const from = this.startReading();
        const subscription = this.options.store.subscribeToAll({
          after: from ?? undefined,
          filter: this.readFilter(),
          batchSize: this.batchSize,
          signal: this.abort.signal,
        });
        this.settleWaiters();
        const apply = (batch: readonly RecordedEvent[]): void => {
          this.applyBatch(batch, true);
          attempt = 0;
        };
        if (this.batchLingerMs > 0) {
          for await (const batch of pullBatches(subscription, this.batchSize, this.batchLingerMs)) {
            this.applyBatch(batch, false);
            attempt = 0;
            if (this.stopping) break;
            await yieldToEventLoop();
          }
        } else {
          await this.consumeLive(subscription, apply);
        }
      } catch (error) {
        if (this.stopping) break;
        if (error instanceof CheckpointMoved) {
          this.counters.resubscriptions++;
          continue;
        }
        attempt++;
        const retryInMs = Math.min(this.retryDelayMs * 2 ** Math.min(attempt - 1, 30), this.maxRetryDelayMs);
        this.fail(error, { source: this.source, attempt, retryInMs });
        this.settleWaiters(error);
        await abortableDelay(retryInMs, this.abort.signal);
      }
    }
    // Stopped: what waits in a deferring store was read in order, and is applied before the runner stops.
    try {
      this.flushDeferred();
    } catch (error) {
      // A checkpoint moved back meanwhile: nothing was written, the next start reads again from it.
      if (!(error instanceof CheckpointMoved)) this.fail(error, { source: this.source, attempt: 1, retryInMs: null });
    }
  }

  /**
   * Applies the subscription's events without waiting for a turn of the event
   * loop: an event that arrives while the runner is idle is applied at once,
   * within a microtask of its delivery (so this process's queries see its own
   * appends as soon as the old per-event consumers did), and the events at
   * hand behind it (a page of the store, a catch-up) are applied together, up
   * to `batchSize` a transaction. A full batch lets timers and I/O run before
   * the next.
   */
  private async consumeLive(subscription: AsyncIterable<RecordedEvent>, apply: (events: readonly RecordedEvent[]) => void): Promise<void> {
    const iterator = subscription[Symbol.asyncIterator]();
    let pending: Promise<IteratorResult<RecordedEvent>> | null = null;
    let batch: RecordedEvent[] = [];
    try {
      while (!this.stopping) {
        pending ??= iterator.next();
        const quick = await raceMicrotasks(pending);
        if (quick === NOT_YET) {
          if (batch.length > 0) {
            apply(batch);
            batch = [];
            continue;
          }
          // Idle: a deferring store's events are applied when their time is up, if no event comes first.
          const due = this.deferredDueInMs();
          const next = due === null ? await pending : await raceTimeout(pending, due);
          if (next === TIMED_OUT) {
            this.flushDeferred();
            continue;
          }
          pending = null;
          if (next.done === true) return;
          apply([next.value]);
          continue;
        }
        pending = null;
        if (quick.done === true) break;
        batch.push(quick.value);
        if (batch.length >= this.batchSize) {
          apply(batch);
          batch = [];
          await yieldToEventLoop();
        }
      }
      if (batch.length > 0 && !this.stopping) apply(batch);
    } finally {
      await iterator.return?.();
    }
  }

  /**
   * Applies one batch in every state store (one transaction each, in the
   * order the stores were added), or, when `defer` and a store defers, adds
   * it to what waits there (applied once `deferMs` passed or `batchSize`
   * events wait).
   * @throws CheckpointMoved when a stored checkpoint is behind its store's cursor (nothing written in that store)
   */
  private applyBatch(batch: readonly RecordedEvent[], defer: boolean): void {
    const last = batch[batch.length - 1];
    if (last === undefined) return;
    const now = Date.now();
    for (const group of this.groups) {
      if (!defer || group.deferMs === 0) {
        this.commit(group, batch);
        continue;
      }
      for (const event of batch) group.pending.push(event);
      group.pendingSince ??= now;
      if (group.pending.length >= this.batchSize || now - group.pendingSince >= group.deferMs) this.commit(group, group.pending);
    }
    this.counters.eventsRead += batch.length;
    this.counters.batches++;
    this.counters.largestBatch = Math.max(this.counters.largestBatch, batch.length);
    this.position = last.position;
    this.settleWaiters();
  }

  /** Applies what waits in the deferring stores. */
  private flushDeferred(): void {
    for (const group of this.groups) if (group.pending.length > 0) this.commit(group, group.pending);
    this.settleWaiters();
  }

  /** How long until the oldest deferred event's time is up (null: none waits). */
  private deferredDueInMs(): number | null {
    let due: number | null = null;
    const now = Date.now();
    for (const group of this.groups) {
      if (group.pendingSince === null) continue;
      const left = Math.max(0, group.pendingSince + group.deferMs - now);
      due = due === null ? left : Math.min(due, left);
    }
    return due;
  }

  /**
   * Applies events in one state store with its processors' checkpoints, in
   * one transaction, then lets its processors observe them.
   * @throws CheckpointMoved when a stored checkpoint is behind the store's cursor (nothing written)
   */
  private commit(group: StoreGroup, events: readonly RecordedEvent[]): void {
    const last = events[events.length - 1];
    if (last === undefined) return;
    const { store, fed, cursor } = group;
    const counts = store.transaction(() => {
      // Every checkpoint of the store is checked before anything is written: the store's part of the batch is refused whole.
      const checkpoints = fed.map(({ processor }) => {
        const checkpoint = store.checkpoint(processor.name, this.source);
        if (cursor !== null && (checkpoint === null || comparePositions(checkpoint, cursor) < 0)) throw new CheckpointMoved(processor.name, store.path);
        return checkpoint;
      });
      const applied = new Map<string, number>();
      fed.forEach(({ processor, matches }, p) => {
        const checkpoint = checkpoints[p] ?? null;
        if (checkpoint !== null && comparePositions(last.position, checkpoint) <= 0) return;
        const after = checkpoint === null || comparePositions(events[0]!.position, checkpoint) > 0 ? events : events.filter((e) => comparePositions(e.position, checkpoint) > 0);
        const taken = after.filter(matches);
        const returned = taken.length > 0 ? processor.apply(taken) : 0;
        const count = typeof returned === 'number' ? returned : taken.length;
        applied.set(processor.name, count);
        store.saveCheckpoint(processor.name, this.source, last.position, taken.at(-1)?.position, count);
      });
      return applied;
    });
    group.cursor = last.position;
    group.pending = [];
    group.pendingSince = null;
    for (const [name, n] of counts) this.applied[name] = (this.applied[name] ?? 0) + n;
    const observedUpTo = group.observedUpTo;
    const unobserved = observedUpTo === null ? events : events.filter((e) => comparePositions(e.position, observedUpTo) > 0);
    if (observedUpTo === null || comparePositions(last.position, observedUpTo) > 0) group.observedUpTo = last.position;
    for (const { processor, matches } of fed) {
      if (processor.observe === undefined) continue;
      const observed = unobserved.filter(matches);
      if (observed.length === 0) continue;
      try {
        processor.observe(observed);
      } catch (error) {
        this.fail(error, { source: this.source, attempt: 1, retryInMs: null });
      }
    }
  }

  private fail(error: unknown, failure: ProcessorFailure): void {
    this.counters.failures++;
    this.lastError = error instanceof Error ? error.message : String(error);
    const report = this.options.onError ?? defaultReport;
    try {
      report(error, failure);
    } catch (reportError) {
      defaultReport(reportError, failure);
    }
  }

  /** Where to read from: the lowest checkpoint of the processors (null: one of them starts from the beginning). */
  private resumePoint(): Position | null {
    let lowest: Position | null = null;
    for (const { store, fed } of this.groups) {
      for (const { processor } of fed) {
        const position = store.checkpoint(processor.name, this.source);
        if (position === null) return null;
        if (lowest === null || comparePositions(position, lowest) < 0) lowest = position;
      }
    }
    return lowest;
  }

  /** The union of the processors' filters when they are of one kind (each processor still matches its own); else none. */
  private readFilter(): EventFilter | undefined {
    const filters = this.fed.map((f) => f.processor.filter);
    if (filters.length === 0 || filters.some((f) => f === undefined)) return undefined;
    const streams = filters.flatMap((f) => f?.streamNamePrefixes ?? []);
    const types = filters.flatMap((f) => f?.eventTypePrefixes ?? []);
    if (streams.length > 0 && types.length > 0) return undefined;
    return streams.length > 0 ? { streamNamePrefixes: [...new Set(streams)] } : { eventTypePrefixes: [...new Set(types)] };
  }

  private async checkIdentity(): Promise<void> {
    const current = (await this.options.store.storeIdentity()).id;
    for (const { store, fed } of this.groups.length > 0 ? this.groups : [{ store: this.options.database, fed: [] }]) {
      const recorded = store.sourceIdentity(this.source);
      if (recorded === current) continue;
      const now = (this.options.now ?? Date.now)();
      if (recorded === undefined && !store.hasCheckpoints(this.source)) {
        store.recordSourceIdentity(this.source, current, now);
        continue;
      }
      const error = new ProcessorStoreMismatchError(store.path, this.source, recorded ?? 'unknown', current);
      if ((this.options.onStoreMismatch ?? 'refuse') !== 'reset') throw error;
      await this.reset(store);
      (this.options.log ?? ((m: string) => process.stderr.write(`${m}\n`)))(
        `${error.message.replace(/: reset it.*$/, '')}: reset it (onStoreMismatch: reset); its processors (${fed.map((f) => f.processor.name).join(', ')}) follow the store from its start`,
      );
    }
  }

  /**
   * Forgets what the processors kept in a state store derived from the event
   * store: resets each of them, forgets the source's checkpoints and records
   * the store's identity, in one transaction of that state store; they then
   * start from the beginning of the event store. For a host that resets
   * several runners of one database together (their processors' state may be
   * tied). Not while the runner follows.
   * @param stateStore @default the runner's `database`
   */
  async reset(stateStore: ProcessorStateStore = this.options.database): Promise<void> {
    const current = (await this.options.store.storeIdentity()).id;
    const fed = this.groups.find((g) => g.store === stateStore)?.fed ?? [];
    stateStore.transaction(() => {
      for (const { processor } of fed) processor.reset();
      stateStore.forgetCheckpoints(this.source);
      stateStore.recordSourceIdentity(this.source, current, (this.options.now ?? Date.now)());
    });
  }
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or {@link TIMED_OUT} after `ms` (the timer is cleared either way). */
async function raceTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function defaultReport(error: unknown, failure: ProcessorFailure): void {
  const retry = failure.retryInMs === null ? 'not retried' : `retrying in ${failure.retryInMs} ms (attempt ${failure.attempt})`;
  process.stderr.write(`Processor runner of source "${failure.source}" failed, ${retry}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
}

function integerOption(value: unknown, option: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new InvalidOptionError(option, `expected an integer >= ${min}, got ${String(value)}`);
  return value;
}

