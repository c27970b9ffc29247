import { EventStoreError } from '../port/errors/event-store-error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreFullError } from '../port/errors/store-full.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';

/** Node's socket error codes of a refused, reset or unreachable connection. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Translates a node-postgres (or socket) error into the port's errors; an
 * `EventStoreError` passes through.
 *
 * | Error | Port error |
 * | --- | --- |
 * | socket errors (`ECONNREFUSED`, `ECONNRESET`...), SQLSTATE class 08 (connection), `57P01`-`57P03` (shutdown, cannot connect now), "Connection terminated", a connection timeout, a query timeout (no answer) | `StoreUnavailableError` (`connectionLost`, retryable) |
 * | `40001` serialization failure, `40P01` deadlock, `55P03` lock not available, `57014` statement timeout | `StoreUnavailableError` (`busy`, retryable) |
 * | `25006` read-only transaction | `StoreUnavailableError` (`readOnly`) |
 * | `28xxx` authentication, `3D000` no such database | `StoreUnavailableError` (`cannotOpen`) |
 * | `53100` disk full | `StoreFullError` |
 * | anything else | `StoreFailureError` (with the SQLSTATE) |
 */
export function translatePostgresError(error: unknown, context: string): EventStoreError {
  if (error instanceof EventStoreError) return error;
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const message = `${context}: ${error instanceof Error ? error.message : String(error)}`;
  const options = { cause: error };
  const text = error instanceof Error ? error.message : '';
  if (
    (code !== undefined && (SOCKET_CODES.has(code) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')) ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|not queryable/i.test(text)
  ) {
    return new StoreUnavailableError(StoreUnavailableReason.CONNECTION_LOST, message, options);
  }
  if (code === '40001' || code === '40P01' || code === '55P03' || code === '57014') {
    return new StoreUnavailableError(StoreUnavailableReason.BUSY, message, options);
  }
  if (code === '25006') return new StoreUnavailableError(StoreUnavailableReason.READ_ONLY, message, options);
  if (code !== undefined && (code.startsWith('28') || code === '3D000')) {
    return new StoreUnavailableError(StoreUnavailableReason.CANNOT_OPEN, message, options);
  }
  if (code === '53100') return new StoreFullError(message, options);
  return new StoreFailureError(code, message, options);
}
