import type { Position, RecordedEvent } from '@agent-ledger/event-store';
import { abortableDelay, comparePositions, DEFAULT_BATCH_SIZE, pullBatches, yieldToEventLoop } from '@agent-ledger/event-store';
import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectionName } from '../core/projection-name';
import { InvalidProjectionOptionError } from '../errors/invalid-projection-option.error';
import type { ProjectionStore } from '../store/projection-store';
import type { TableSlot } from '../store/sql-table';
import { TableSlot as Slot } from '../store/sql-table';
import type { ProjectionSource } from './projection-source';
import { PROJECTED_EVENTS_FILTER, isValidSourceName } from './projection-source';

/** Options of a {@link ProjectionRunner}. */
export interface ProjectionRunnerOptions {
  /**
   * The projections it feeds.
   * @default every projection of the store
   */
  readonly projections?: readonly ProjectionName[];
  /**
   * Most events applied in one transaction, and the subscription's page size:
   * what the runner holds in memory at most.
   * @default 256
   */
  readonly batchSize?: number;
  /**
   * Wait before resubscribing after a failure of the event store or of the
   * read-model database.
   * @default 1000
   */
  readonly retryDelayMs?: number;
  /**
   * While following live events, how long a batch that is not full may wait
   * for more events before it is applied: under load, many events of the same
   * runs then share one transaction (and each row is written once), at the
   * price of that much more lag. 0 applies what is there at once.
   * @default 20
   */
  readonly batchLingerMs?: number;
  /** Told about every failure (the runner retries after `retryDelayMs`). @default ignored (see `stats().lastError`) */
  readonly onError?: (error: unknown) => void;
}

/** Counters of a runner since it was created. */
export interface ProjectionRunnerStats {
  readonly running: boolean;
  /** Transactions committed. */
  readonly batches: number;
  /** Events read from the source. */
  readonly eventsRead: number;
  /** Events applied, summed over projections. */
  readonly eventsApplied: number;
  /** The most events in one transaction so far (never more than `batchSize`). */
  readonly largestBatch: number;
  /** Resubscriptions because a checkpoint moved (a rebuild was swapped in). */
  readonly resubscriptions: number;
  /** Failures so far; the last one's message. */
  readonly failures: number;
  readonly lastError: string | null;
  /** The position of the last event processed. */
  readonly position: Position | null;
}

/** How long a live batch may wait for more events by default (see `batchLingerMs`). */
const DEFAULT_BATCH_LINGER_MS = 20;

/**
 * Feeds projections from one event store: a catch-up subscription to `$all`
 * (categories `run` and `audit`) from the stored checkpoint, pulled one batch
 * at a time; each batch is applied with the checkpoint in one SQLite
 * transaction ({@link ProjectionStore.applyBatch}). A restart resumes after
 * the checkpoint: no event is applied twice, none is skipped.
 *
 * It only writes read-model tables: no command, no event, no side effect.
 */
export class ProjectionRunner {
  private readonly projections: readonly ProjectionDefinition[];
  private readonly batchSize: number;
  private readonly retryDelayMs: number;
  private readonly batchLingerMs: number;
  private abort = new AbortController();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private counters = { batches: 0, eventsRead: 0, eventsApplied: 0, largestBatch: 0, resubscriptions: 0, failures: 0 };
  private lastError: string | null = null;
  private position: Position | null = null;

  constructor(
    private readonly store: ProjectionStore,
    readonly source: ProjectionSource,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    if (!isValidSourceName(source.name)) {
      throw new InvalidProjectionOptionError('source.name', 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    this.projections = store.definitions(options.projections);
    this.batchSize = positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE);
    this.retryDelayMs = nonNegativeInteger(options.retryDelayMs, 'retryDelayMs', 1_000);
    this.batchLingerMs = nonNegativeInteger(options.batchLingerMs, 'batchLingerMs', DEFAULT_BATCH_LINGER_MS);
  }

  /** Starts following the source in the background (idempotent). */
  start(): void {
    if (this.loop !== null) return;
    this.stopping = false;
    this.abort = new AbortController();
    this.loop = this.follow();
  }

  /** Stops after the batch in progress (its transaction commits or not at all); resolves when stopped. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    const loop = this.loop;
    this.loop = null;
    await loop;
  }

  /**
   * Processes everything stored now (reading `$all` to its current end), then
   * returns: for tools and tests that need the read models up to date once,
   * without following. Do not run it while the same runner follows.
   */
  async catchUp(): Promise<void> {
    for (;;) {
      const from = this.resumePoint();
      const events = this.source.store.readAll({ fromPosition: from ?? 'start', filter: PROJECTED_EVENTS_FILTER });
      const outcome = await this.consume(events, from, Slot.LIVE);
      if (outcome === 'end') return;
    }
  }

  /** Counters and the last failure. */
  stats(): ProjectionRunnerStats {
    return { ...this.counters, running: this.loop !== null, lastError: this.lastError, position: this.position };
  }

  private async follow(): Promise<void> {
    while (!this.stopping) {
      try {
        const from = this.resumePoint();
        const subscription = this.source.store.subscribeToAll({
          after: from ?? undefined,
          filter: PROJECTED_EVENTS_FILTER,
          batchSize: this.batchSize,
          signal: this.abort.signal,
        });
        await this.consume(subscription, from, Slot.LIVE, this.batchLingerMs);
      } catch (error) {
        if (this.stopping) break;
        this.counters.failures++;
        this.lastError = error instanceof Error ? error.message : String(error);
        try {
          this.options.onError?.(error);
        } catch {
          // a failing error handler must not stop the runner
        }
        await abortableDelay(this.retryDelayMs, this.abort.signal);
      }
    }
  }

  /** Applies batches until the events end ('end') or a checkpoint moved under the runner ('moved'). */
  private async consume(events: AsyncIterable<RecordedEvent>, from: Position | null, slot: TableSlot, lingerMs = 0): Promise<'end' | 'moved'> {
    let cursor = from;
    for await (const batch of pullBatches(events, this.batchSize, lingerMs)) {
      const outcome = this.store.applyBatch({ slot, source: this.source.name, projections: this.projections, events: batch, after: cursor });
      if (outcome.kind === 'checkpointMoved') {
        this.counters.resubscriptions++;
        return 'moved';
      }
      cursor = outcome.position ?? cursor;
      this.position = cursor;
      this.counters.batches++;
      this.counters.eventsRead += batch.length;
      this.counters.eventsApplied += outcome.applied;
      this.counters.largestBatch = Math.max(this.counters.largestBatch, batch.length);
      await yieldToEventLoop();
    }
    return 'end';
  }

  /** The lowest stored checkpoint of the runner's projections (null: one of them starts from the beginning). */
  private resumePoint(): Position | null {
    let lowest: Position | null = null;
    for (const projection of this.projections) {
      const position = this.store.checkpoint(projection.name, this.source.name)?.position ?? null;
      if (position === null) return null;
      if (lowest === null || comparePositions(position, lowest) < 0) lowest = position;
    }
    return lowest;
  }
}

/** A positive integer option, or its default. */
export function positiveInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidProjectionOptionError(option, `expected a positive integer, got ${String(value)}`);
  }
  return value;
}

function nonNegativeInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidProjectionOptionError(option, `expected an integer >= 0, got ${String(value)}`);
  }
  return value;
}
