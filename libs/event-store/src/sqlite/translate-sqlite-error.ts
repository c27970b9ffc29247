import { EventStoreError } from '../port/errors/event-store-error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreFullError } from '../port/errors/store-full.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';

/**
 * Translates an error thrown by better-sqlite3 into the port's own error, at
 * the adapter's edge, keeping it as `cause`. Errors that already are
 * `EventStoreError`s pass through unchanged.
 *
 * | SQLite code (and extended codes) | port error |
 * | --- | --- |
 * | `SQLITE_BUSY*`, `SQLITE_LOCKED*` | `StoreUnavailableError` (`busy`, retryable) |
 * | `SQLITE_FULL` | `StoreFullError` |
 * | `SQLITE_READONLY*` | `StoreUnavailableError` (`readOnly`) |
 * | `SQLITE_CANTOPEN*`, `SQLITE_PERM`, `SQLITE_AUTH`, missing directory, `ENOTDIR`/`EACCES`/... | `StoreUnavailableError` (`cannotOpen`) |
 * | `EROFS` | `StoreUnavailableError` (`readOnly`) |
 * | `SQLITE_IOERR*` | `StoreUnavailableError` (`ioError`) |
 * | anything else (`SQLITE_CORRUPT`, `SQLITE_NOTADB`...) | `StoreFailureError` with `driverCode` |
 *
 * @param context - what the adapter was doing, for the message (`append to run-1`).
 */
export function translateSqliteError(error: unknown, context: string): EventStoreError {
  if (error instanceof EventStoreError) return error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const message = `${context}: ${error instanceof Error ? error.message : String(error)}`;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0] ?? code;
    switch (primary) {
      case 'SQLITE_BUSY':
      case 'SQLITE_LOCKED':
        return new StoreUnavailableError(StoreUnavailableReason.BUSY, message, { cause: error });
      case 'SQLITE_FULL':
        return new StoreFullError(message, { cause: error });
      case 'SQLITE_READONLY':
        return new StoreUnavailableError(StoreUnavailableReason.READ_ONLY, message, { cause: error });
      case 'SQLITE_CANTOPEN':
      case 'SQLITE_PERM':
      case 'SQLITE_AUTH':
        return new StoreUnavailableError(StoreUnavailableReason.CANNOT_OPEN, message, { cause: error });
      case 'SQLITE_IOERR':
        return new StoreUnavailableError(StoreUnavailableReason.IO_ERROR, message, { cause: error });
      default:
        return new StoreFailureError(code, message, { cause: error });
    }
  }
  // Creating the directory or opening the file failed at the file-system level.
  if (typeof code === 'string' && ['ENOENT', 'ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'EISDIR'].includes(code)) {
    return new StoreUnavailableError(
      code === 'EROFS' ? StoreUnavailableReason.READ_ONLY : StoreUnavailableReason.CANNOT_OPEN,
      message,
      { cause: error },
    );
  }
  // better-sqlite3 throws a TypeError before calling SQLite when the directory is missing.
  if (error instanceof TypeError && /directory does not exist/i.test(error.message)) {
    return new StoreUnavailableError(StoreUnavailableReason.CANNOT_OPEN, message, { cause: error });
  }
  return new StoreFailureError(undefined, message, { cause: error });
}
