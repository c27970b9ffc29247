import { EventStoreErrorCode, isEventStoreError } from '../port/errors/event-store-error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreFullError } from '../port/errors/store-full.error';
import { StoreUnavailableError } from '../port/errors/store-unavailable.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { translateSqliteError } from './translate-sqlite-error';

/** What better-sqlite3 throws: an Error with SQLite's (extended) result code as `code`. */
const sqliteError = (code: string, message = 'driver message') => Object.assign(new Error(message), { code });

describe('translateSqliteError', () => {
  it('SQLITE_FULL (a full disk, a quota, a page cap) is a StoreFullError: code STORE_FULL, not retryable, the driver error kept as cause', () => {
    const cause = sqliteError('SQLITE_FULL', 'database or disk is full');
    const error = translateSqliteError(cause, 'append to run-1');
    expect(error).toBeInstanceOf(StoreFullError);
    expect(error).toMatchObject({ code: EventStoreErrorCode.STORE_FULL, retryable: false, name: 'StoreFullError' });
    expect(error.message).toBe('Event store full: append to run-1: database or disk is full');
    expect(error.cause).toBe(cause);
    expect(isEventStoreError(error, 'STORE_FULL')).toBe(true);
  });

  it.each([
    ['SQLITE_BUSY', 'busy', true],
    ['SQLITE_BUSY_SNAPSHOT', 'busy', true],
    ['SQLITE_LOCKED', 'busy', true],
    ['SQLITE_READONLY', 'readOnly', false],
    ['SQLITE_READONLY_DBMOVED', 'readOnly', false],
    ['SQLITE_CANTOPEN', 'cannotOpen', false],
    ['SQLITE_PERM', 'cannotOpen', false],
    ['SQLITE_IOERR_WRITE', 'ioError', false],
    ['SQLITE_IOERR_FSYNC', 'ioError', false],
  ])('%s is a StoreUnavailableError(%s), retryable %s', (code, reason, retryable) => {
    const error = translateSqliteError(sqliteError(code), 'append to run-1');
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', reason, retryable });
  });

  it('an extended full code would still be a full store', () => {
    expect(translateSqliteError(sqliteError('SQLITE_FULL_SOMETHING'), 'x')).toBeInstanceOf(StoreFullError);
  });

  it.each(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CONSTRAINT_UNIQUE'])('%s is a StoreFailureError with the driver code', (code) => {
    expect(translateSqliteError(sqliteError(code), 'x')).toMatchObject({ code: 'STORE_FAILURE', driverCode: code });
  });

  it('file-system errors when opening: EROFS is read-only, the others cannot open', () => {
    expect(translateSqliteError(sqliteError('EROFS'), 'open')).toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'readOnly' });
    expect(translateSqliteError(sqliteError('EACCES'), 'open')).toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'cannotOpen' });
    expect(translateSqliteError(new TypeError('Cannot open database because the directory does not exist'), 'open')).toMatchObject({ reason: 'cannotOpen' });
  });

  it('passes the port\'s own errors through, and makes anything else a StoreFailureError', () => {
    const own = new WrongExpectedRevisionError('run-1', 0n, 1n);
    expect(translateSqliteError(own, 'x')).toBe(own);
    expect(translateSqliteError('boom', 'x')).toBeInstanceOf(StoreFailureError);
    expect(translateSqliteError(new Error('boom'), 'x')).toMatchObject({ code: 'STORE_FAILURE', driverCode: undefined });
  });
});
