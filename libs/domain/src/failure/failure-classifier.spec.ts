import { AttemptsFailedError } from '../errors/attempts-failed.error';
import { AuditPersistenceFailedException } from '../errors/audit-persistence-failed.error';
import { CircuitOpenError } from '../errors/circuit-open.error';
import { ConfigurationError } from '../errors/configuration.error';
import { FAILURE_CLASSES, isRetryable } from './failure-class';
import { classifyFailure, classifyHttpStatus } from './failure-classifier';

const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
const socketError = (code: string) => Object.assign(new Error(code), { code });

describe('FailureClass', () => {
  it('has the eight classes, of which connection, rateLimit, serverError and circuitOpen are retryable', () => {
    expect(FAILURE_CLASSES).toHaveLength(8);
    expect(FAILURE_CLASSES.filter(isRetryable).sort()).toEqual(['circuitOpen', 'connection', 'rateLimit', 'serverError']);
  });
});

describe('classifyFailure', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [429, 'rateLimit'],
    [500, 'serverError'],
    [502, 'serverError'],
    [503, 'serverError'],
    [599, 'serverError'],
    [400, 'clientError'],
    [404, 'clientError'],
    [408, 'clientError'],
    [422, 'clientError'],
  ])('maps HTTP %i to %s', (status, expected) => {
    expect(classifyFailure(httpError(status))).toBe(expected);
    expect(classifyHttpStatus(status)).toBe(expected);
  });

  it('reads the status from statusCode and from response.status too', () => {
    expect(classifyFailure({ statusCode: 429 })).toBe('rateLimit');
    expect(classifyFailure({ response: { status: 503 } })).toBe('serverError');
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET'])(
    'maps the network error %s to connection',
    (code) => {
      expect(classifyFailure(socketError(code))).toBe('connection');
    },
  );

  it('maps a timeout (AbortSignal.timeout) to connection', () => {
    expect(classifyFailure(new DOMException('timed out', 'TimeoutError'))).toBe('connection');
  });

  it('follows the cause of a foreign wrapper, as fetch wraps the socket error', () => {
    expect(classifyFailure(new TypeError('fetch failed', { cause: socketError('ECONNREFUSED') }))).toBe('connection');
  });

  it('classifies a wrapper of several attempts as its last attempt', () => {
    expect(classifyFailure(new AttemptsFailedError([httpError(503), httpError(401)]))).toBe('auth');
    expect(classifyFailure(new AggregateError([httpError(401), socketError('ECONNRESET')]))).toBe('connection');
    expect(classifyFailure(new AggregateError([]))).toBe('unknown');
  });

  it('classifies AuditPersistenceFailedException as unknown, even when the store failure behind it was a connection error', () => {
    const error = new AuditPersistenceFailedException('run-1', 'run-1/r0/t0', 'files.append', 'NON_IDEMPOTENT_WRITE', {
      cause: socketError('ECONNREFUSED'),
    });
    expect(classifyFailure(error)).toBe('unknown');
    expect(isRetryable(classifyFailure(error))).toBe(false);
    expect(classifyFailure(new AttemptsFailedError([socketError('ECONNRESET'), error]))).toBe('unknown');
  });

  it('uses the class a domain error carries as data', () => {
    expect(classifyFailure(new ConfigurationError('no model configured'))).toBe('configuration');
    expect(classifyFailure(new CircuitOpenError('openai'))).toBe('circuitOpen');
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a string', 'boom'],
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a non-error HTTP status', { status: 302 }],
    ['an unknown code', socketError('EWHATEVER')],
  ])('maps %s to unknown', (_label, value) => {
    expect(classifyFailure(value)).toBe('unknown');
  });

  it('stops following causes that loop', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(classifyFailure(a)).toBe('unknown');
  });
});
