import type { RunPolicyOptions } from '@agent-ledger/domain';
import type { ProcessorsOptions } from '../persistence/event-processors.options';
import type { AuditGapSagaOptions } from '../saga/audit-gap-saga.options';
import type { WorkerProcessesOptions } from './worker-processes-options';

/** How this process's workers take queued runs. */
export interface WorkerOptions {
  /** Segments this process executes at once; 0 runs no worker here. @default 4 */
  readonly concurrency?: number;
  /** How often an idle worker looks for due runs even without a notification (backoffs end by the clock). @default 250 */
  readonly pollIntervalMs?: number;
  /**
   * On a run store that serves consumer groups (EventStoreDB), the group that
   * hands each runnable run to one worker process; `false` makes every
   * process's workers race for every due run, as on the embedded store.
   * @default the defaults of {@link ConsumerGroupOptions}
   */
  readonly consumerGroup?: ConsumerGroupOptions | false;
  /**
   * Worker processes this process starts and supervises, to use the machine's
   * other cores (each builds its own workers from `entry`); this process's own
   * workers are still `concurrency`: give 0 to leave the runs to them.
   * @default none
   */
  readonly processes?: WorkerProcessesOptions;
}

/** The consumer group the workers of every process join on a store that serves them. */
export interface ConsumerGroupOptions {
  /** The group's name: every worker process of one deployment uses the same. @default 'agent-ledger-workers' */
  readonly name?: string;
  /** How long a process has to claim (or put aside) an offered run before the store offers it to another. @default 30000 */
  readonly messageTimeoutMs?: number;
  /** How many times an offer is made again (timeouts, store failures) before the store parks it. @default 10 */
  readonly maxRetryCount?: number;
  /**
   * How long a due run may wait unclaimed before this process's workers claim
   * it from their own queue index, offered or not: the fallback for a timer
   * held by a process that died, a parked offer, and runs queued before the
   * group existed.
   * @default 30000
   */
  readonly sweepAfterMs?: number;
}

/** The range of each numeric {@link ConsumerGroupOptions} setting, inclusive. */
export const CONSUMER_GROUP_LIMITS = Object.freeze({
  messageTimeoutMs: Object.freeze({ min: 1_000, max: 3_600_000 }),
  maxRetryCount: Object.freeze({ min: 0, max: 1_000 }),
  sweepAfterMs: Object.freeze({ min: 0, max: 86_400_000 }),
});

/** {@link ConsumerGroupOptions} with every default applied. */
export type ResolvedConsumerGroupOptions = Required<ConsumerGroupOptions>;

/** The defaults of {@link ConsumerGroupOptions}. */
export const DEFAULT_CONSUMER_GROUP: ResolvedConsumerGroupOptions = Object.freeze({
  name: 'agent-ledger-workers',
  messageTimeoutMs: 30_000,
  maxRetryCount: 10,
  sweepAfterMs: 30_000,
});

/** How this process reaps expired leases. */
export interface ReaperOptions {
  /** How often the reaper looks for expired leases; 0 disables the periodic reaper (call `reapOnce()`). @default 30000 */
  readonly intervalMs?: number;
}

/** Options of the execution engine. */
export interface ExecutionOptions {
  /** Lease length and backoff; the rest of the run policy is fixed. */
  readonly policy?: RunPolicyOptions;
  readonly workers?: WorkerOptions;
  readonly reaper?: ReaperOptions;
  /** The audit-gap saga of this process. */
  readonly auditGapSaga?: AuditGapSagaOptions;
  /** The processors' database: the queue's checkpointed table of unfinished runs, with its checkpoint. */
  readonly processors?: ProcessorsOptions;
}

/** Injection token of the resolved {@link ExecutionOptions}. */
export const EXECUTION_OPTIONS = Symbol('agent-ledger:ExecutionOptions');

/**
 * The processors' options with their defaults: the saga's ledger file is the
 * processors' database unless `processors.databasePath` names another (a host
 * of an earlier version then keeps its queue and saga state in the file it
 * gave), and the saga's `onStoreMismatch` applies unless the processors give one.
 */
export function processorsOptionsOf(options: ExecutionOptions): ProcessorsOptions {
  const saga = options.auditGapSaga?.enabled === false ? undefined : options.auditGapSaga;
  return {
    databasePath: options.processors?.databasePath ?? saga?.databasePath,
    onStoreMismatch: options.processors?.onStoreMismatch ?? saga?.onStoreMismatch,
  };
}
