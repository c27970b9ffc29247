import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import {
  AgentLedgerError,
  ApprovalRoundMismatchError,
  InvalidFieldError,
  RunAlreadyExistsError,
  RunAlreadySettledError,
  RunNotFoundError,
  RunNotWaitingError,
  RunRuleViolation,
} from '@agent-ledger/domain';
import { isEventStoreError } from '@agent-ledger/event-store';
import type { EventStoreError } from '@agent-ledger/event-store';
import { InvalidQueryError, ProjectionError } from '@agent-ledger/projections';
import { AuthenticationRequiredError, NotEntitledError, ScopeMissingError } from '../auth/auth.errors';
import { ConsoleFileNotFoundError, ConsoleMethodNotAllowedError, ConsoleNotBuiltError } from '../console/console.errors';
import { AuditStatementNotStoredError, IdempotencyKeyReusedError } from '@agent-ledger/runtime';
import { MessageValidationError } from '@agent-ledger/validation';
import { UnsupportedMediaTypeError } from '../bodies/unsupported-media-type.error';
import { RequestValidationError } from '../validation/request-validation.error';
import type { ApiErrorBody } from './api-error-body';

/** How an error is answered. */
export interface HttpErrorAnswer {
  readonly status: number;
  readonly body: ApiErrorBody;
  /** Extra response headers (`Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether the error is the server's fault and must be logged with its stack. */
  readonly serverFault: boolean;
}

/**
 * **The** mapping from errors to HTTP answers: the only place of the service
 * that decides a status code for an error. The domain and the stores throw
 * their own typed errors and know nothing of HTTP.
 *
 * | error | status |
 * | --- | --- |
 * | `AuthenticationRequiredError` (no key, bad key) | 401, with `WWW-Authenticate: Bearer` |
 * | `ScopeMissingError`, `NotEntitledError` | 403 |
 * | refused body / query (`RequestValidationError`), a refused command (`MessageValidationError`), `InvalidFieldError`, `InvalidQueryError`, malformed JSON | 400 |
 * | `RunNotFoundError`, unknown route, `ConsoleNotBuiltError`, `ConsoleFileNotFoundError` | 404 |
 * | `ConsoleMethodNotAllowedError` | 405, with `Allow: GET, HEAD` |
 * | `RunAlreadyExistsError`, `RunAlreadySettledError`, `RunNotWaitingError` (`RUN_NOT_WAITING_FOR_APPROVAL` / `_INPUT`), `ApprovalRoundMismatchError`, any other `RunRuleViolation`, `IdempotencyKeyReusedError`, `WRONG_EXPECTED_REVISION` | 409 |
 * | `STREAM_DELETED` | 410 |
 * | a body that could not be decoded (`Content-Encoding` that lies) | 400 |
 * | body over the limit, `EVENT_TOO_LARGE` | 413 |
 * | `UnsupportedMediaTypeError` (a non-empty body that is not `application/json`), a JSON body whose charset is not a UTF (`CHARSET_UNSUPPORTED`) | 415 |
 * | `STORE_UNAVAILABLE`, `STORE_CLOSED`, a closed read-model database, `CIRCUIT_OPEN`, a domain error of class `connection` (`AUDIT_STATEMENT_NOT_STORED`: with `Retry-After: 1` and `continuationRunId`) | 503 |
 * | anything else | 500, with a generic message |
 */
export function httpErrorAnswerOf(error: unknown): HttpErrorAnswer {
  if (error instanceof AuthenticationRequiredError) {
    return answer(401, { code: error.code, message: error.message, reason: error.reason }, { headers: { 'WWW-Authenticate': 'Bearer realm="agent-ledger"' } });
  }
  if (error instanceof ScopeMissingError) return answer(403, { code: error.code, message: error.message, keyId: error.keyId, requiredScopes: error.requiredScopes });
  if (error instanceof NotEntitledError) {
    return answer(403, { code: error.code, message: error.message, keyId: error.keyId, ...(error.field === null ? {} : { field: error.field, rule: 'entitled' }) });
  }
  if (error instanceof RequestValidationError) {
    const first = error.issues[0];
    return answer(400, { code: error.code, message: error.message, field: first?.field ?? 'body', rule: first?.rule ?? 'invalid', issues: error.issues });
  }
  // A command the route sent, refused by the bus's validation: answered as a refused body, field by field.
  if (error instanceof MessageValidationError) {
    return answer(400, { code: error.code, message: error.message, field: error.field, rule: error.rule, issues: error.issues });
  }
  if (error instanceof InvalidFieldError) {
    return answer(400, { code: error.code, message: error.message, field: error.field, rule: 'invalid', problem: error.problem });
  }
  if (error instanceof UnsupportedMediaTypeError) {
    return answer(415, { code: error.code, message: error.message, field: 'Content-Type', rule: 'mediaType', received: error.received, expected: error.expected });
  }
  if (error instanceof RunNotFoundError) return answer(404, { code: error.code, message: error.message, runId: error.runId });
  if (error instanceof ConsoleNotBuiltError || error instanceof ConsoleFileNotFoundError) return answer(404, { code: error.code, message: error.message });
  if (error instanceof ConsoleMethodNotAllowedError) return answer(405, { code: error.code, message: error.message, method: error.method }, { headers: { Allow: 'GET, HEAD' } });
  if (error instanceof RunAlreadySettledError) return answer(409, { code: error.code, message: error.message, runId: error.runId, status: error.status });
  if (error instanceof RunAlreadyExistsError) return answer(409, { code: error.code, message: error.message, runId: error.runId, field: 'runId', rule: 'unique' });
  if (error instanceof RunNotWaitingError) return answer(409, { code: error.code, message: error.message, runId: error.runId, status: error.status, waitingFor: error.waitingFor });
  if (error instanceof ApprovalRoundMismatchError) {
    return answer(409, { code: error.code, message: error.message, runId: error.runId, field: 'round', rule: 'waitingRound', round: error.expectedRound, waitingRound: error.waitingRound });
  }
  if (error instanceof RunRuleViolation) return answer(409, { code: error.code, message: error.message, runId: error.runId });
  if (error instanceof IdempotencyKeyReusedError) {
    return answer(409, { code: error.code, message: error.message, runId: error.runId, field: 'idempotencyKey', rule: 'sameRequest', differs: error.field });
  }
  if (error instanceof AuditStatementNotStoredError) {
    // The requeue is recorded but its statement is not: the continuation waits for a repeat of the request, which completes it.
    return answer(503, { code: error.code, message: error.message, runId: error.runId, continuationRunId: error.continuationRunId }, { headers: { 'Retry-After': '1' } });
  }
  if (error instanceof AgentLedgerError) {
    // The target (a store, a provider) could not be reached: the request may succeed later.
    if (error.failureClass === 'circuitOpen' || error.failureClass === 'connection') return answer(503, { code: error.code, message: error.message }, { headers: { 'Retry-After': '1' } });
    if (error.failureClass === 'clientError') return answer(400, { code: error.code, message: error.message });
    return answer(500, { code: error.code, message: error.message }, { serverFault: true });
  }
  if (isEventStoreError(error)) return eventStoreErrorAnswer(error);
  if (error instanceof InvalidQueryError) return answer(400, { code: error.code, message: error.message, field: error.option, rule: 'invalid', problem: error.reason });
  if (error instanceof ProjectionError) {
    switch (error.code) {
      case 'UNKNOWN_PROJECTION':
        return answer(404, { code: error.code, message: error.message });
      case 'REBUILD_IN_PROGRESS':
      case 'REBUILD_ABORTED':
        return answer(409, { code: error.code, message: error.message });
      case 'STORE_CLOSED':
        return answer(503, { code: error.code, message: 'The read models are not available' }, { serverFault: true });
      default:
        return answer(500, { code: error.code, message: error.message }, { serverFault: true });
    }
  }
  const bodyError = bodyParserErrorAnswer(error);
  if (bodyError !== undefined) return bodyError;
  if (error instanceof HttpException) return nestHttpExceptionAnswer(error);
  return answer(500, { code: 'INTERNAL_ERROR', message: 'Internal server error' }, { serverFault: true });
}

function eventStoreErrorAnswer(error: EventStoreError): HttpErrorAnswer {
  const base = { code: error.code, message: error.message };
  switch (error.code) {
    case 'STORE_UNAVAILABLE':
    case 'STORE_CLOSED':
      return answer(503, { ...base, message: 'The event store is not available now' }, { headers: { 'Retry-After': '1' }, serverFault: true });
    case 'STORE_FULL':
      return answer(507, { ...base, message: 'The event store is full' }, { serverFault: true });
    case 'WRONG_EXPECTED_REVISION':
      return answer(409, base);
    case 'STREAM_DELETED':
      return answer(410, base);
    case 'EVENT_TOO_LARGE':
      return answer(413, { ...base, field: 'body', rule: 'eventSize' });
    case 'INVALID_STREAM_NAME':
    case 'INVALID_EVENT':
    case 'INVALID_OPTION':
    case 'INVALID_POSITION':
      return answer(400, base);
    default:
      return answer(500, { ...base, message: 'The event store failed' }, { serverFault: true });
  }
}

/** Errors of Express's body parser that reach the filter as they are (a malformed JSON body arrives as a Nest `BadRequestException`). */
function bodyParserErrorAnswer(error: unknown): HttpErrorAnswer | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status, limit, expose } = error as { type?: unknown; status?: unknown; limit?: unknown; expose?: unknown };
  if (type === 'entity.too.large') {
    return answer(413, { code: 'PAYLOAD_TOO_LARGE', message: `The request body is larger than ${String(limit)} bytes`, field: 'body', rule: 'maxBytes', limit });
  }
  if (typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
    return answer(status, { code: type.replace(/\./g, '_').toUpperCase(), message: (error as Error).message, field: 'body', rule: type });
  }
  if (type === undefined && typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
    // The body parser marks a failure of the stream it read the body from (a `Content-Encoding: gzip` body that
    // is not gzip) with a status and no type: the client's body is at fault, not the server.
    const message = error instanceof Error ? error.message : 'unreadable';
    return answer(status, { code: 'MALFORMED_BODY', message: `The body could not be decoded: ${message}`, field: 'body', rule: 'encoding' });
  }
  return undefined;
}

/**
 * The service throws no `HttpException` of its own: those that reach the
 * filter come from Nest (an unknown route) or from the JSON body parser (a
 * malformed body) or Express (a malformed path).
 */
function nestHttpExceptionAnswer(error: HttpException): HttpErrorAnswer {
  const status = error.getStatus();
  if (status === 404) return answer(404, { code: 'ROUTE_NOT_FOUND', message: error.message });
  if (status === 400) {
    return /JSON/i.test(error.message)
      ? answer(400, { code: 'MALFORMED_JSON', message: `The body is not valid JSON: ${error.message}`, field: 'body', rule: 'json' })
      : answer(400, { code: 'MALFORMED_REQUEST', message: error.message, field: 'path', rule: 'uri' });
  }
  const code = (STATUS_CODES[status] ?? 'HTTP_ERROR').toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return answer(status, { code, message: status >= 500 ? 'Internal server error' : error.message }, { serverFault: status >= 500 });
}

function answer(
  status: number,
  fields: { readonly code: string; readonly message: string } & Record<string, unknown>,
  options: { readonly headers?: Readonly<Record<string, string>>; readonly serverFault?: boolean } = {},
): HttpErrorAnswer {
  return {
    status,
    body: { statusCode: status, error: STATUS_CODES[status] ?? 'Error', ...fields },
    headers: options.headers,
    serverFault: options.serverFault ?? false,
  };
}
