import type { ProjectionDefinition } from '../core/projection-definition';

/** Options of {@link ProjectionStore.open}. */
export interface ProjectionStoreOptions {
  /**
   * The SQLite file of the read models (directory created; WAL, so `-wal` and
   * `-shm` sit beside it while open). Never the event store's file. Required:
   * there is no default, so that a host's read models never land in the
   * agent-ledger service's `./data/read-models.sqlite`.
   */
  readonly path: string;
  /**
   * The projections whose tables the store holds.
   * @default every projection of this library (run status, steps, audit review, approvals)
   */
  readonly projections?: readonly ProjectionDefinition[];
  /**
   * How long a write waits for another process's write lock on the file.
   * @default 5000
   */
  readonly busyTimeoutMs?: number;
  /** The clock of `updated_at` in checkpoints (never used for rows). @default Date.now */
  readonly now?: () => number;
}
