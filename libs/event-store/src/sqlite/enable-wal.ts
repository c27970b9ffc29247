import type Database from 'better-sqlite3';

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Puts a connection's file in WAL mode, waiting up to `busyTimeoutMs` while
 * other processes hold its locks. SQLite answers `SQLITE_BUSY` to a journal-mode
 * switch at once, without calling the busy handler, when another connection
 * opens the same new file at the same moment (seen when a service and its
 * workers start together), so the connection's `timeout` alone does not cover it.
 * @throws the last SQLite error when the file stays locked past the timeout
 */
export function enableWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (let pauseMs = 2; ; pauseMs = Math.min(pauseMs * 2, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !BUSY_CODES.has(code) || Date.now() >= deadline) throw error;
      // Synchronous on purpose: it runs while a store or database is opened, which callers expect to be synchronous.
      Atomics.wait(sleeper, 0, 0, Math.min(pauseMs, Math.max(1, deadline - Date.now())));
    }
  }
}
