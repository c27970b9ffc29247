import { BadRequestException, NotFoundException } from '@nestjs/common';
import { ApprovalRoundMismatchError, ConfigurationError, InvalidFieldError, RunAlreadyExistsError, RunAlreadySettledError, RunNotClaimableError, RunNotFoundError, RunNotWaitingError } from '@agent-ledger/domain';
import { StoreFailureError, StoreUnavailableError, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import { InvalidQueryError, ProjectionStoreClosedError } from '@agent-ledger/projections';
import { AuthenticationRequiredError, NotEntitledError, ScopeMissingError } from '../auth/auth.errors';
import { AuditStatementNotStoredError, IdempotencyKeyReusedError, MessageValidationError } from '@agent-ledger/runtime';
import { ConsoleFileNotFoundError, ConsoleMethodNotAllowedError, ConsoleNotBuiltError } from '../console/console.errors';
import { UnsupportedMediaTypeError } from '../bodies/unsupported-media-type.error';
import { RequestValidationError } from '../validation/request-validation.error';
import { httpErrorAnswerOf } from './http-error-mapping';

describe('httpErrorAnswerOf: the one mapping from errors to HTTP', () => {
  it.each([
    ['a refused body', new RequestValidationError([{ field: 'agent', rule: 'isString', message: 'agent must be a string' }]), 400, 'INVALID_FIELD', { field: 'agent', rule: 'isString' }],
    [
      'a command refused on the bus, answered as a refused body',
      new MessageValidationError('StartRun', [{ field: 'input', rule: 'maxDepth', message: 'input must not nest deeper than 128 levels (the body being the first)' }]),
      400,
      'INVALID_FIELD',
      { field: 'input', rule: 'maxDepth', message: 'input must not nest deeper than 128 levels (the body being the first)', issues: [{ field: 'input', rule: 'maxDepth', message: 'input must not nest deeper than 128 levels (the body being the first)' }] },
    ],
    ['InvalidFieldError', new InvalidFieldError('agent', 'must name a configured agent'), 400, 'INVALID_FIELD', { field: 'agent', problem: 'must name a configured agent' }],
    ['InvalidQueryError', new InvalidQueryError('cursor', 'not a cursor returned by listRuns'), 400, 'INVALID_QUERY', { field: 'cursor' }],
    ['RunNotFoundError', new RunNotFoundError('r1'), 404, 'RUN_NOT_FOUND', { runId: 'r1' }],
    ['RunAlreadyExistsError', new RunAlreadyExistsError('r1'), 409, 'RUN_ALREADY_EXISTS', { runId: 'r1', field: 'runId' }],
    ['RunAlreadySettledError', new RunAlreadySettledError('r1', 'COMPLETED'), 409, 'RUN_ALREADY_SETTLED', { status: 'COMPLETED' }],
    ['RunNotWaitingError (approval)', new RunNotWaitingError('r1', 'approval', 'QUEUED'), 409, 'RUN_NOT_WAITING_FOR_APPROVAL', { runId: 'r1', status: 'QUEUED', waitingFor: 'approval' }],
    ['RunNotWaitingError (input)', new RunNotWaitingError('r1', 'input', 'WAITING_FOR_APPROVAL'), 409, 'RUN_NOT_WAITING_FOR_INPUT', { runId: 'r1', status: 'WAITING_FOR_APPROVAL', waitingFor: 'input' }],
    ['ApprovalRoundMismatchError', new ApprovalRoundMismatchError('r1', 0, 2), 409, 'APPROVAL_ROUND_MISMATCH', { runId: 'r1', field: 'round', round: 0, waitingRound: 2 }],
    ['AuditStatementNotStoredError', new AuditStatementNotStoredError('r1', 'r1/r0/t0', 'c1'), 503, 'AUDIT_STATEMENT_NOT_STORED', { runId: 'r1', continuationRunId: 'c1' }],
    ['another RunRuleViolation', new RunNotClaimableError('r1', 'notQueued', 'RUNNING', null), 409, 'RUN_NOT_CLAIMABLE', { runId: 'r1' }],
    ['IdempotencyKeyReusedError', new IdempotencyKeyReusedError('ik-1', 'input'), 409, 'IDEMPOTENCY_KEY_REUSED', { field: 'idempotencyKey', differs: 'input' }],
    ['WrongExpectedRevisionError', new WrongExpectedRevisionError('run-r1', 1n, 2n), 409, 'WRONG_EXPECTED_REVISION', {}],
    ['StoreUnavailableError', new StoreUnavailableError('busy', 'locked'), 503, 'STORE_UNAVAILABLE', {}],
    ['a closed read-model database', new ProjectionStoreClosedError('/x'), 503, 'STORE_CLOSED', {}],
    ['a body over the limit', Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, expose: true, limit: 1024 }), 413, 'PAYLOAD_TOO_LARGE', { field: 'body', rule: 'maxBytes', limit: 1024 }],
    ['malformed JSON', new BadRequestException('Unexpected end of JSON input'), 400, 'MALFORMED_JSON', { field: 'body', rule: 'json' }],
    // Found by the HTTP fuzz suite: `Content-Encoding: gzip` on a body that is not gzip was a 500.
    ['a body its Content-Encoding cannot decode', Object.assign(new Error('incorrect header check'), { errno: -3, code: 'Z_DATA_ERROR', status: 400, statusCode: 400, expose: true }), 400, 'MALFORMED_BODY', { field: 'body', rule: 'encoding' }],
    ['a body that is not JSON', new UnsupportedMediaTypeError('text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', { field: 'Content-Type', rule: 'mediaType', received: 'text/plain', expected: 'application/json' }],
    ['a body without Content-Type', new UnsupportedMediaTypeError(null), 415, 'UNSUPPORTED_MEDIA_TYPE', { received: 'none', expected: 'application/json', message: expect.stringContaining('no Content-Type') as string }],
    ['a JSON body in a charset that is not a UTF', Object.assign(new Error('unsupported charset "LATIN1"'), { type: 'charset.unsupported', status: 415, expose: true, charset: 'latin1' }), 415, 'CHARSET_UNSUPPORTED', { field: 'body' }],
    ['an unknown route', new NotFoundException('Cannot GET /x'), 404, 'ROUTE_NOT_FOUND', {}],
    ['no API key', new AuthenticationRequiredError('missing'), 401, 'UNAUTHENTICATED', { reason: 'missing' }],
    ['a key without the scope', new ScopeMissingError('k1', ['runs:read']), 403, 'SCOPE_MISSING', { keyId: 'k1', requiredScopes: ['runs:read'] }],
    ['a key limited to other agents', new NotEntitledError('k1', 'agent', 'no'), 403, 'NOT_ENTITLED', { keyId: 'k1', field: 'agent', rule: 'entitled' }],
    ['ConfigurationError', new ConfigurationError('bad'), 500, 'CONFIGURATION', {}],
    ['a console that is not built', new ConsoleNotBuiltError(), 404, 'CONSOLE_NOT_BUILT', { message: expect.stringContaining('npm run build') as string }],
    ['a console file that is not there (or may not be served)', new ConsoleFileNotFoundError(), 404, 'CONSOLE_FILE_NOT_FOUND', {}],
    ['a console file asked with POST', new ConsoleMethodNotAllowedError('POST'), 405, 'METHOD_NOT_ALLOWED', { method: 'POST' }],
  ])('%s', (_what, error, status, code, fields) => {
    const answer = httpErrorAnswerOf(error);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ statusCode: status, code, ...fields });
    expect(typeof answer.body.error).toBe('string');
  });

  it('tells the methods a console file answers on 405', () => {
    expect(httpErrorAnswerOf(new ConsoleMethodNotAllowedError('DELETE')).headers).toEqual({ Allow: 'GET, HEAD' });
  });

  it('asks for a bearer token on 401', () => {
    expect(httpErrorAnswerOf(new AuthenticationRequiredError('invalid')).headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="agent-ledger"' });
  });

  it('answers a requeue whose statement could not be stored: 503, Retry-After (a repeat completes it), the continuation named, not a server fault', () => {
    const statement = httpErrorAnswerOf(new AuditStatementNotStoredError('r1', 'r1/r0/t0', 'c1'));
    expect(statement).toMatchObject({ status: 503, serverFault: false, headers: { 'Retry-After': '1' }, body: { runId: 'r1', continuationRunId: 'c1' } });
  });

  it('answers the refusals of a decision or an input like RUN_ALREADY_SETTLED: 409, the run, its status, no server fault', () => {
    const settled = httpErrorAnswerOf(new RunAlreadySettledError('r1', 'COMPLETED'));
    const notWaiting = httpErrorAnswerOf(new RunNotWaitingError('r1', 'approval', 'QUEUED'));
    expect(settled).toMatchObject({ status: 409, serverFault: false, body: { runId: 'r1', status: 'COMPLETED' } });
    expect(notWaiting).toMatchObject({ status: 409, serverFault: false, body: { runId: 'r1', status: 'QUEUED' } });
    expect(notWaiting.headers).toBeUndefined();
  });

  it('answers 500 without the message or the stack of an unknown error, and marks it a server fault', () => {
    const answer = httpErrorAnswerOf(new TypeError('secret internals at /srv/app'));
    expect(answer).toMatchObject({ status: 500, serverFault: true, body: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
    expect(JSON.stringify(answer.body)).not.toContain('secret');
  });

  it('hides the store failure behind a generic message', () => {
    const answer = httpErrorAnswerOf(new StoreFailureError('SQLITE_CORRUPT', 'database disk image is malformed'));
    expect(answer).toMatchObject({ status: 500, serverFault: true, body: { code: 'STORE_FAILURE', message: 'The event store failed' } });
  });
});
