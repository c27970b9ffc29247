import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreFullError } from '../port/errors/store-full.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { translatePostgresError } from './translate-postgres-error';

/** An error shaped as node-postgres gives it: a message and, from the server, a SQLSTATE `code`. */
const pgError = (message: string, code?: string): Error => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('translatePostgresError', () => {
  it.each([
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', pgError('read ECONNRESET', 'ECONNRESET')],
    ['a connection cut by the server', pgError('Connection terminated unexpectedly')],
    ['a pool connection timeout', pgError('timeout exceeded when trying to connect')],
    ['no answer within query_timeout (a partition)', pgError('Query read timeout')],
    ['an administrator shutdown (57P01)', pgError('terminating connection due to administrator command', '57P01')],
    ['the server starting up (57P03)', pgError('the database system is starting up', '57P03')],
    ['a connection exception (08006)', pgError('connection failure', '08006')],
  ])('%s: StoreUnavailableError (connectionLost), retryable, the driver error as cause', (_, error) => {
    const translated = translatePostgresError(error, 'append to c-1');
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect(translated).toMatchObject({ reason: StoreUnavailableReason.CONNECTION_LOST, retryable: true, cause: error });
    expect(translated.message).toContain('append to c-1');
  });

  it.each([
    ['40001', StoreUnavailableReason.BUSY, true],
    ['40P01', StoreUnavailableReason.BUSY, true],
    ['25006', StoreUnavailableReason.READ_ONLY, false],
    ['28P01', StoreUnavailableReason.CANNOT_OPEN, false],
    ['3D000', StoreUnavailableReason.CANNOT_OPEN, false],
  ])('SQLSTATE %s: StoreUnavailableError (%s), retryable %s', (code, reason, retryable) => {
    expect(translatePostgresError(pgError('x', code), 'c')).toMatchObject({ reason, retryable });
  });

  it('disk full is StoreFullError; any other SQLSTATE is StoreFailureError carrying it', () => {
    expect(translatePostgresError(pgError('could not extend file', '53100'), 'c')).toBeInstanceOf(StoreFullError);
    const failure = translatePostgresError(pgError('relation does not exist', '42P01'), 'c');
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect(failure).toMatchObject({ driverCode: '42P01' });
    expect(translatePostgresError('not even an error', 'c')).toBeInstanceOf(StoreFailureError);
  });

  it("passes the port's own errors through unchanged", () => {
    const conflict = new WrongExpectedRevisionError('c-1', 1n, 2n);
    expect(translatePostgresError(conflict, 'c')).toBe(conflict);
  });
});
