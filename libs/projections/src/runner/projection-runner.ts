import type { Position } from '@agent-ledger/event-store';
import { DEFAULT_BATCH_SIZE, ProcessorRunner } from '@agent-ledger/event-store';
import type { ProjectionName } from '../core/projection-name';
import { InvalidProjectionOptionError } from '../errors/invalid-projection-option.error';
import type { ProjectionStore } from '../store/projection-store';
import type { ProcessorRunnerHost } from './processor-runner-host';
import type { ProjectionSource } from './projection-source';
import { isValidSourceName } from './projection-source';

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
   * The first wait before reading again from the checkpoints after a failure
   * of the event store or of the read-model database; it doubles with each
   * failure in a row, up to `maxRetryDelayMs`.
   * @default 1000
   */
  readonly retryDelayMs?: number;
  /** The longest wait between two attempts. @default 5000 */
  readonly maxRetryDelayMs?: number;
  /**
   * While following live events, how long a batch that is not full may wait
   * for more events before it is applied: under load, many events of the same
   * runs then share one transaction (and each row is written once), at the
   * price of that much more lag. 0 applies what is there at once.
   * @default 20
   */
  readonly batchLingerMs?: number;
  /** Told about every failure (the runner retries after its back-off). @default ignored (see `stats().lastError`) */
  readonly onError?: (error: unknown) => void;
  /**
   * Runners the process already has on the stores (the runtime's processors),
   * to join instead of reading the source's store a second time: the
   * projections are added to the host's runner of the source (one
   * transaction of each file per batch; `batchLingerMs` is how long the
   * projections' events may wait there, so that they batch under load). The
   * batch size and retry options and `onError` are then the host runner's; `start()` starts the host's
   * runners, `stop()` leaves them running (their owner stops them), and
   * `catchUp()` waits until the host's runner has read what is stored now.
   * @default none: a runner of its own
   */
  readonly host?: ProcessorRunnerHost;
}

/** Counters of a runner since it was created. */
export interface ProjectionRunnerStats {
  readonly running: boolean;
  /** Transactions committed. */
  readonly batches: number;
  /** Events read from the source (batches rolled back included). */
  readonly eventsRead: number;
  /** Events applied, summed over projections (duplicates not counted). */
  readonly eventsApplied: number;
  /** The most events in one transaction so far (never more than `batchSize`). */
  readonly largestBatch: number;
  /** Resubscriptions because a checkpoint moved back under the runner (a rebuild was swapped in). */
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
 * Feeds projections from one event store, for a host without the runtime's
 * processors: a `ProcessorRunner` (the one follow loop of the event-store
 * library) whose processors are the store's projections
 * ({@link ProjectionStore.processors}), kept in its live tables
 * ({@link ProjectionStore.stateStore}). It reads `$all` (categories `run` and
 * `audit`) from the lowest checkpoint; each batch's rows and checkpoints are
 * written in one SQLite transaction. A restart resumes after the
 * checkpoints: no event is applied twice, none is skipped. A rebuild swapped
 * in under it moves the checkpoints: it reads again from them.
 *
 * It only writes read-model tables: no command, no event, no side effect.
 */
export class ProjectionRunner {
  private readonly runner: ProcessorRunner;
  private readonly host: ProcessorRunnerHost | undefined;
  private readonly names: readonly string[];

  /**
   * @throws InvalidProjectionOptionError naming the option when one is invalid
   * @throws UnknownProjectionError for a projection the store does not hold
   */
  constructor(
    store: ProjectionStore,
    readonly source: ProjectionSource,
    options: ProjectionRunnerOptions = {},
  ) {
    if (!isValidSourceName(source.name)) {
      throw new InvalidProjectionOptionError('source.name', 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    const processors = store.processors(options.projections);
    this.names = processors.map((p) => p.name);
    this.host = options.host;
    const batchLingerMs = nonNegativeInteger(options.batchLingerMs, 'batchLingerMs', DEFAULT_BATCH_LINGER_MS);
    if (this.host !== undefined) {
      this.runner = this.host.runnerOf(source.name);
      // The host's other processors (the queue) apply each event at once; the projections batch what comes within the linger.
      for (const processor of processors) this.runner.add(processor, store.stateStore, { deferMs: batchLingerMs });
      return;
    }
    const retryDelayMs = positiveInteger(options.retryDelayMs, 'retryDelayMs', 1_000);
    const maxRetryDelayMs = positiveInteger(options.maxRetryDelayMs, 'maxRetryDelayMs', Math.max(5_000, retryDelayMs));
    if (maxRetryDelayMs < retryDelayMs) throw new InvalidProjectionOptionError('maxRetryDelayMs', `expected at least retryDelayMs (${retryDelayMs}), got ${maxRetryDelayMs}`);
    this.runner = new ProcessorRunner({
      store: source.store,
      source: source.name,
      database: store.stateStore,
      processors,
      batchSize: positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE),
      batchLingerMs,
      retryDelayMs,
      maxRetryDelayMs,
      onError: (error) => options.onError?.(error),
    });
  }

  /**
   * Checks the read models' recorded store for the source (recording it on a
   * new file), then follows the source in the background (idempotent).
   * @throws ProcessorStoreMismatchError when the read models recorded another store for the source (nothing written)
   */
  async start(): Promise<void> {
    await (this.host ?? this.runner).start();
  }

  /**
   * Stops after the batch in progress (its transaction commits or not at
   * all); resolves when stopped. A host's runner is left running.
   */
  async stop(): Promise<void> {
    if (this.host === undefined) await this.runner.stop();
  }

  /**
   * Processes everything stored now (reading `$all` to its current end), then
   * returns: for tools and tests that need the read models up to date once.
   * A failure is thrown, not retried. While the runner (its own, or the
   * host's) follows, it waits until that runner has read what is stored now
   * instead of reading a second time.
   */
  async catchUp(): Promise<void> {
    await this.runner.catchUp();
  }

  /** Counters and the last failure (on a host's runner, its counters; `eventsApplied` counts the projections' events). */
  stats(): ProjectionRunnerStats {
    const { running, batches, eventsRead, applied, largestBatch, resubscriptions, failures, lastError, position } = this.runner.stats();
    const eventsApplied = this.names.reduce((sum, name) => sum + (applied[name] ?? 0), 0);
    return { running, batches, eventsRead, eventsApplied, largestBatch, resubscriptions, failures, lastError, position };
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
