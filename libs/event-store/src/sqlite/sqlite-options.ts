/**
 * What an acknowledged append survives in the embedded store. Each maps to a
 * SQLite `synchronous` setting under WAL journaling.
 */
export const Durability = {
  /**
   * `synchronous=NORMAL`: an acknowledged append survives a crash of the
   * process (the commit is in the WAL file, handed to the OS), but the last
   * commits before a power loss or an OS crash may be lost (never corrupted).
   * No fsync per commit: the fast default.
   */
  PROCESS_CRASH: 'processCrash',
  /**
   * `synchronous=FULL`: the WAL is fsynced at every commit, so an acknowledged
   * append also survives a power loss or an OS crash. Group commit amortises
   * the fsync over the appends of one batch.
   */
  POWER_LOSS: 'powerLoss',
} as const;

/** Union of the values of {@link Durability}. */
export type Durability = (typeof Durability)[keyof typeof Durability];

/** Options of `SqliteEventStore.open`. */
export interface SqliteEventStoreOptions {
  /**
   * The database file (required: there is no default, so that a library user's
   * store never lands in the agent-ledger service's `./data/agent-ledger.sqlite`).
   * Its directory is created if missing. SQLite keeps two companions beside it
   * while open (`-wal`, `-shm`); copy all three, or none.
   */
  readonly path: string;
  /**
   * What an acknowledged append survives.
   * @default Durability.PROCESS_CRASH
   */
  readonly durability?: Durability;
  /**
   * Group the appends that concurrent async callers make in the same turn of
   * the event loop into one transaction (each still checked on its own).
   * Raises throughput; each append waits at most one event-loop turn more.
   * @default true
   */
  readonly groupCommit?: boolean;
  /**
   * Most operations (appends, deletes) in one group-commit transaction.
   * @default 512
   */
  readonly maxBatchSize?: number;
  /**
   * How long a write waits for another process's write lock before failing
   * with `StoreUnavailableError` (reason `busy`), in ms.
   *
   * @remarks better-sqlite3 is synchronous: while waiting for the lock, this
   * process's event loop is blocked. Keep transactions short (they are).
   * @default 5000
   */
  readonly busyTimeoutMs?: number;
  /**
   * Live subscriptions notice appends of *other processes* by polling the
   * file's change counter (`PRAGMA data_version`, a cheap in-memory check)
   * while at least one subscription waits, starting at this interval after
   * activity and doubling up to `maxPollIntervalMs`. Appends of this process
   * wake subscriptions at once, without polling.
   * @default 5
   */
  readonly minPollIntervalMs?: number;
  /**
   * Longest interval between two polls for other processes' appends: the worst
   * case cross-process live latency when idle, in ms.
   * @default 100
   */
  readonly maxPollIntervalMs?: number;
  /**
   * Open the file read-only: appends and deletes fail with
   * `StoreUnavailableError` (reason `readOnly`). The file must exist.
   * @default false
   */
  readonly readOnly?: boolean;
  /**
   * The clock stamping `created`.
   * @default Date.now
   */
  readonly now?: () => number;
}
