import type { ProcessorStoreMismatchPolicy } from '@agent-ledger/event-store';

/** Options of the process's event processors (the queue index, the audit-gap saga). */
export interface ProcessorsOptions {
  /**
   * The SQLite file of the processors: their checkpoints and their rows (the
   * queue's unfinished runs), created if missing. Processes that share the
   * stores may share it. With `:memory:` the queue is rebuilt from the whole
   * history at every start of the process.
   * @default ':memory:'
   */
  readonly databasePath?: string;
  /**
   * What to do when the file was made from other stores than the runtime's:
   * `refuse` fails the application's start with `ProcessorStoreMismatchError`;
   * `reset` forgets the processors' state and follows the stores from their
   * start (logged).
   * @default 'refuse'
   */
  readonly onStoreMismatch?: ProcessorStoreMismatchPolicy;
}

/** Injection token of the {@link ProcessorsOptions}. */
export const PROCESSORS_OPTIONS = Symbol('agent-ledger:ProcessorsOptions');
