/**
 * Holds a SQLite file's write lock from the TEST process (`BEGIN EXCLUSIVE`,
 * as `test/faults/support/lock-holder.ts` does in a child): the service is
 * another process, so its appends to that file wait for the lock and fail
 * with `StoreUnavailableError(busy)` after their busy timeout (5 s, the
 * embedded store's default). Reads go on (WAL).
 */
import Database from 'better-sqlite3';

export interface HeldLock {
  /** `ROLLBACK` (nothing was written under the lock) and close the file. Idempotent. */
  release(): void;
}

/** Takes the write lock of `path` (waits up to 5 s for a writer of the service to finish its transaction). */
export function holdWriteLock(path: string): HeldLock {
  const db = new Database(path, { timeout: 5_000 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    release: () => {
      if (!db.open) return;
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  };
}
