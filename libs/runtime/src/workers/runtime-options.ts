import type { RunPolicyOptions } from '@agent-ledger/domain';
import type { ProcessorsOptions } from '../persistence/event-processors.options';
import type { AuditGapSagaOptions } from '../saga/audit-gap-saga.options';

/** How this process's workers take queued runs. */
export interface WorkerOptions {
  /** Segments this process executes at once; 0 runs no worker here. @default 4 */
  readonly concurrency?: number;
  /** How often an idle worker looks for due runs even without a notification (backoffs end by the clock). @default 250 */
  readonly pollIntervalMs?: number;
}

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
