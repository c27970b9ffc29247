import { AgentLedgerApiError } from '../errors/api-error';
import { AgentLedgerError } from '../errors/agent-ledger-error';
import { apiErrorOf, isJson } from './error-mapping';

describe('apiErrorOf', () => {
  it('types the API error body: status, code, field, rule, issues, the body with its further fields', () => {
    const body = {
      statusCode: 400,
      error: 'Bad Request',
      code: 'INVALID_FIELD',
      field: 'agent',
      rule: 'isString',
      message: 'agent must be a string',
      issues: [{ field: 'agent', rule: 'isString', message: 'agent must be a string' }],
    };
    const error = apiErrorOf({ status: 400, text: JSON.stringify(body), contentType: 'application/json; charset=utf-8', retryAfter: null }, 'POST /runs');
    expect(error).toBeInstanceOf(AgentLedgerApiError);
    expect(error).toBeInstanceOf(AgentLedgerError);
    expect(error).toMatchObject({ name: 'AgentLedgerApiError', status: 400, code: 'INVALID_FIELD', field: 'agent', rule: 'isString', issues: body.issues, body, request: 'POST /runs' });
    expect(error.message).toBe('POST /runs: 400 INVALID_FIELD: agent must be a string');
    expect(error.apiMessage).toBe('agent must be a string');
    expect(error.retryAfterSeconds).toBeUndefined();
  });

  it('keeps the further fields of a conflict and the Retry-After of a 503', () => {
    const conflict = { statusCode: 409, error: 'Conflict', code: 'APPROVAL_ROUND_MISMATCH', message: 'm', field: 'round', round: 1, waitingRound: 2 };
    const error = apiErrorOf({ status: 409, text: JSON.stringify(conflict), contentType: 'application/json', retryAfter: null }, 'POST /runs/r/approval');
    expect(error.body.waitingRound).toBe(2);
    expect(error.field).toBe('round');
    expect(error.rule).toBeUndefined();
    expect(error.issues).toEqual([]);
    const unavailable = { statusCode: 503, error: 'Service Unavailable', code: 'STORE_UNAVAILABLE', message: 'try again' };
    expect(apiErrorOf({ status: 503, text: JSON.stringify(unavailable), contentType: 'application/json', retryAfter: ' 1 ' }, 'GET /runs').retryAfterSeconds).toBe(1);
  });

  it('gives HTTP_<status> and the text for an answer that is not the API error body', () => {
    const html = apiErrorOf({ status: 502, text: '<html>Bad gateway</html>', contentType: 'text/html', retryAfter: null }, 'GET /runs');
    expect(html).toMatchObject({ status: 502, code: 'HTTP_502', field: undefined, body: { statusCode: 502, error: 'Bad Gateway', code: 'HTTP_502', message: '<html>Bad gateway</html>' } });
    const notJson = apiErrorOf({ status: 500, text: '{oops', contentType: 'application/json', retryAfter: null }, 'GET /me');
    expect(notJson.code).toBe('HTTP_500');
    const otherJson = apiErrorOf({ status: 404, text: '{"message":"no"}', contentType: 'application/json', retryAfter: null }, 'GET /x');
    expect(otherJson).toMatchObject({ code: 'HTTP_404', body: { message: '{"message":"no"}' } });
    const empty = apiErrorOf({ status: 418, text: '', contentType: null, retryAfter: null }, 'GET /x');
    expect(empty.body).toEqual({ statusCode: 418, error: 'Error', code: 'HTTP_418', message: 'The service answered 418 without an error body' });
    const long = apiErrorOf({ status: 500, text: 'x'.repeat(2000), contentType: 'text/plain', retryAfter: null }, 'GET /x');
    expect(long.body.message).toHaveLength(503);
  });

  it('knows JSON media types', () => {
    expect(['application/json', 'application/json; charset=utf-8', 'Application/JSON'].map(isJson)).toEqual([true, true, true]);
    expect(['application/jsonx', 'text/json', 'application/merge-patch+json', null].map(isJson)).toEqual([false, false, false, false]);
  });
});
