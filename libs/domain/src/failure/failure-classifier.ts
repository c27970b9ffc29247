import { AgentLedgerError } from '../errors/agent-ledger-error';
import { FailureClass } from './failure-class';

/** Error codes of Node's sockets and of undici (fetch) that mean "could not reach the target". */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** How deep the classifier follows `cause` links of foreign errors (`fetch failed` wraps the socket error). */
const MAX_CAUSE_DEPTH = 5;

/**
 * Maps any thrown value to its {@link FailureClass}. Pure and total: it never
 * throws. Every retry decision in the product goes through it.
 *
 * Rules, first match wins:
 * 1. an {@link AgentLedgerError} is its own `failureClass` (its `cause` is not
 *    looked at: `AuditPersistenceFailedException` stays `unknown` even when the
 *    store error behind it was a connection failure);
 * 2. a wrapper of several attempts (`AggregateError`, `AttemptsFailedError`)
 *    is the class of its last attempt;
 * 3. an HTTP status (`status`, `statusCode` or `response.status`): 401/403
 *    auth, 429 rateLimit, 5xx serverError, other 4xx clientError;
 * 4. a network error (`code` such as `ECONNREFUSED`, or a `TimeoutError`): connection;
 * 5. otherwise the class of its `cause`, if that is not `unknown`;
 * 6. anything else: unknown.
 */
export function classifyFailure(error: unknown): FailureClass {
  return classify(error, 0);
}

function classify(error: unknown, depth: number): FailureClass {
  if (error instanceof AgentLedgerError) {
    return error.failureClass;
  }
  if (typeof error !== 'object' || error === null) {
    return FailureClass.UNKNOWN;
  }
  if (error instanceof AggregateError) {
    const attempts: unknown[] = Array.isArray(error.errors) ? error.errors : [];
    return attempts.length > 0 ? classify(attempts[attempts.length - 1], depth) : FailureClass.UNKNOWN;
  }
  const status = httpStatusOf(error);
  if (status !== undefined) {
    return classifyHttpStatus(status);
  }
  if (isNetworkError(error)) {
    return FailureClass.CONNECTION;
  }
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    return classify(cause, depth + 1);
  }
  return FailureClass.UNKNOWN;
}

/** The class of an HTTP error status; `unknown` for a status that is not an error (below 400). */
export function classifyHttpStatus(status: number): FailureClass {
  if (status === 401 || status === 403) return FailureClass.AUTH;
  if (status === 429) return FailureClass.RATE_LIMIT;
  if (status >= 500 && status <= 599) return FailureClass.SERVER_ERROR;
  if (status >= 400 && status <= 499) return FailureClass.CLIENT_ERROR;
  return FailureClass.UNKNOWN;
}

function httpStatusOf(error: object): number | undefined {
  const candidate = error as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  for (const value of [candidate.status, candidate.statusCode, candidate.response?.status]) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599) {
      return value;
    }
  }
  return undefined;
}

function isNetworkError(error: object): boolean {
  const { code, name } = error as { code?: unknown; name?: unknown };
  return (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) || name === 'TimeoutError';
}
