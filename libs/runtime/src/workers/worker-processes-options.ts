import { ConfigurationError } from '@agent-ledger/domain';
import { usableCores } from './usable-cores';

/**
 * Worker processes a process starts and supervises, so that a host uses the
 * machine's other cores: each runs the script `entry`, which builds the
 * runtime's workers on the same stores (for the service, `agent-ledger worker
 * --no-saga`). A worker process that exits unasked is started again after a
 * back-off, and the runs it held are taken back by the reaper as after any
 * crash; on shutdown each is sent SIGTERM and drains.
 */
export interface WorkerProcessesOptions {
  /**
   * How many: `'auto'` for one fewer than the cores the process may use
   * (`os.availableParallelism()`, bounded by a container's CPU quota, minus
   * one: none on one core); 0 for none.
   */
  readonly count: number | 'auto';
  /** The script each worker process runs, with this process's Node.js options (`process.execArgv`). */
  readonly entry: string;
  /** Its arguments. @default [] */
  readonly args?: readonly string[];
  /** Its environment (`AGENT_LEDGER_WORKER_PROCESS` is added: its number, from 1). @default this process's */
  readonly env?: NodeJS.ProcessEnv;
  /** How long a worker process has to drain after SIGTERM before it is killed. @default 60000 */
  readonly stopTimeoutMs?: number;
  /** The first wait before a worker process that exited is started again; it doubles while it keeps exiting, up to 30 s. @default 1000 */
  readonly restartDelayMs?: number;
}

/** The most worker processes one process supervises. */
export const MAX_WORKER_PROCESSES = 64;

/** The environment variable that tells a worker process its number (from 1), and that a process supervises it. */
export const WORKER_PROCESS_ENV = 'AGENT_LEDGER_WORKER_PROCESS';

/** How many worker processes `count` means on this machine (`cores`: those the process may use, see {@link usableCores}). */
export function resolveWorkerProcessCount(count: number | 'auto', cores: number = usableCores()): number {
  return count === 'auto' ? Math.min(MAX_WORKER_PROCESSES, Math.max(0, cores - 1)) : count;
}

/**
 * Checks the options field by field.
 * @throws ConfigurationError naming the field
 */
export function checkWorkerProcessesOptions(options: WorkerProcessesOptions, field: string): void {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError(`${field} must be an object ({ count, entry })`);
  const { count } = options;
  if (count !== 'auto' && (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_WORKER_PROCESSES)) {
    throw new ConfigurationError(`${field}.count must be 'auto' or an integer from 0 to ${MAX_WORKER_PROCESSES} (got ${JSON.stringify(count)})`);
  }
  if (typeof options.entry !== 'string' || options.entry.trim() === '') throw new ConfigurationError(`${field}.entry must name the script a worker process runs`);
  if (options.args !== undefined && (!Array.isArray(options.args) || options.args.some((a) => typeof a !== 'string'))) throw new ConfigurationError(`${field}.args must be a list of strings`);
  for (const key of ['stopTimeoutMs', 'restartDelayMs'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 3_600_000)) {
      throw new ConfigurationError(`${field}.${key} must be an integer from 1 to 3600000 (got ${JSON.stringify(value)})`);
    }
  }
}
