/** What kind of failure an error is; decides, in one place, whether a retry can help. */
export const FailureClass = {
  /** The target could not be reached (refused, reset, timed out, DNS). */
  CONNECTION: 'connection',
  /** The target asked us to slow down (HTTP 429). */
  RATE_LIMIT: 'rateLimit',
  /** The credentials were refused (HTTP 401, 403). */
  AUTH: 'auth',
  /** Our own configuration is wrong. */
  CONFIGURATION: 'configuration',
  /** The request was wrong (other HTTP 4xx). */
  CLIENT_ERROR: 'clientError',
  /** The target failed (HTTP 5xx). */
  SERVER_ERROR: 'serverError',
  /** A circuit breaker refused the call without trying it. */
  CIRCUIT_OPEN: 'circuitOpen',
  /** Anything else, including every failure that must never be retried blindly. */
  UNKNOWN: 'unknown',
} as const;

/** One of the eight {@link FailureClass} values. */
export type FailureClass = (typeof FailureClass)[keyof typeof FailureClass];

/** Every failure class. */
export const FAILURE_CLASSES: readonly FailureClass[] = Object.freeze(Object.values(FailureClass));

/** The classes a retry can help with. */
export const RETRYABLE_FAILURE_CLASSES: ReadonlySet<FailureClass> = new Set<FailureClass>([
  FailureClass.CONNECTION,
  FailureClass.RATE_LIMIT,
  FailureClass.SERVER_ERROR,
  FailureClass.CIRCUIT_OPEN,
]);

/** Whether a failure of this class may be retried. */
export function isRetryable(failureClass: FailureClass): boolean {
  return RETRYABLE_FAILURE_CLASSES.has(failureClass);
}

/** Whether `value` is one of the eight classes. */
export function isFailureClass(value: unknown): value is FailureClass {
  return typeof value === 'string' && (FAILURE_CLASSES as readonly string[]).includes(value);
}
