import { MessageValidationError, validateMessage } from '@agent-ledger/validation';
import type { ListApprovalsQuery } from '../queries/approval-list-query';
import type { AuditReviewQuery } from '../queries/audit-review-report';
import type { ListRunsQuery } from '../queries/run-list-query';
import { GetAuditReview, GetRun, GetRunSteps, ListApprovals, ListRuns } from './read-model-queries';

function refusal(message: object): { field: string; rule: string; message: string } | null {
  try {
    validateMessage(message);
    return null;
  } catch (error) {
    if (!(error instanceof MessageValidationError)) throw error;
    return { field: error.field, rule: error.rule, message: error.message };
  }
}

describe('the read-model queries carry the HTTP API rules on the bus', () => {
  it.each([
    ['GetRun({ runId })', (id: unknown) => new GetRun({ runId: id as string })],
    ['GetRunSteps({ runId })', (id: unknown) => new GetRunSteps({ runId: id as string })],
    // The older shape, the run id alone, is still accepted and checked alike.
    ['GetRun(runId)', (id: unknown) => new GetRun(id as string)],
    ['GetRunSteps(runId)', (id: unknown) => new GetRunSteps(id as string)],
  ])('%s accepts a run id and refuses a bad one, naming runId', (_name, make) => {
    expect(refusal(make('run-1'))).toBeNull();
    expect(make('run-1')).toMatchObject({ runId: 'run-1' });
    expect(refusal(make('ik-0123456789abcdef:x.y_z'))).toBeNull();
    expect(refusal(make(7))).toEqual({ field: 'runId', rule: 'isString', message: 'runId must be a string' });
    expect(refusal(make(undefined))).toEqual({ field: 'runId', rule: 'isString', message: 'runId must be a string' });
    expect(refusal(make(''))).toMatchObject({ field: 'runId', rule: 'matches' });
    expect(refusal(make('../etc'))).toMatchObject({ field: 'runId', rule: 'matches' });
    expect(refusal(make('r'.repeat(129)))).toMatchObject({ field: 'runId', rule: 'matches' });
  });

  it.each([
    ['GetRun', (fields: unknown) => new GetRun(fields as { runId: string })],
    ['GetRunSteps', (fields: unknown) => new GetRunSteps(fields as { runId: string })],
  ])('%s takes one fields object, as every bus message: an unknown field, a __proto__ key or no object is refused', (_name, make) => {
    expect(Object.keys(make({ runId: 'run-1' }))).toEqual(['runId']);
    expect(refusal(make({ runId: 'run-1', status: 'COMPLETED' }))).toEqual({ field: 'status', rule: 'unknownField', message: 'property status should not exist' });
    expect(refusal(make(JSON.parse('{"runId": "run-1", "__proto__": {"x": 1}}')))).toMatchObject({ field: '__proto__', rule: 'unknownField' });
    expect(refusal(make({}))).toMatchObject({ field: 'runId', rule: 'isString' });
    expect(refusal(make(null))).toMatchObject({ field: 'runId', rule: 'isString' });
    expect(refusal(make({ runId: 7 }))).toMatchObject({ field: 'runId', rule: 'isString' });
  });

  it('ListRuns accepts every filter within its rule, and no filter at all', () => {
    expect(refusal(new ListRuns())).toBeNull();
    const all: ListRunsQuery = { status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', agent: 'clerk', since: 0, until: 1_700_000_000_000, limit: 1000, cursor: 'c' };
    expect(refusal(new ListRuns(all))).toBeNull();
    expect(new ListRuns(all).query).toMatchObject(all);
  });

  it.each<[Record<string, unknown>, string, string]>([
    [{ status: 'DONE' }, 'query.status', 'isIn'],
    [{ reason: 'BECAUSE' }, 'query.reason', 'isIn'],
    [{ agent: '' }, 'query.agent', 'isLength'],
    [{ agent: 3 }, 'query.agent', 'isString'],
    [{ since: '2026-11-30' }, 'query.since', 'isInt'],
    [{ until: 1.5 }, 'query.until', 'isInt'],
    [{ limit: 0 }, 'query.limit', 'min'],
    [{ limit: 1001 }, 'query.limit', 'max'],
    [{ limit: '10' }, 'query.limit', 'isInt'],
    [{ cursor: '' }, 'query.cursor', 'isLength'],
    [{ offset: 10 }, 'query.offset', 'unknownField'],
    // Left out is no filter; null is not (it was let through once).
    [{ status: null }, 'query.status', 'isIn'],
    [{ limit: null }, 'query.limit', 'isInt'],
    [{ cursor: null }, 'query.cursor', 'isString'],
  ])('ListRuns refuses %j naming %s (%s)', (query, field, rule) => {
    expect(refusal(new ListRuns(query as ListRunsQuery))).toMatchObject({ field, rule });
  });

  it('ListRuns refuses a query that is not an object', () => {
    expect(refusal(new ListRuns('status=FAILED' as unknown as ListRunsQuery))).toMatchObject({ field: 'query', rule: 'nestedValidation' });
    expect(refusal(new ListRuns(null as unknown as ListRunsQuery))).toMatchObject({ field: 'query' });
  });

  it('a __proto__ key in a filter becomes a refused field, not the prototype of the filter', () => {
    const query = JSON.parse('{"__proto__": {"limit": 5}}') as ListRunsQuery;
    expect(refusal(new ListRuns(query))).toMatchObject({ field: 'query.__proto__', rule: 'unknownField' });
  });

  it.each<[Record<string, unknown>, string | null, string | null]>([
    [{}, null, null],
    [{ runId: 'run-1', limit: 100_000 }, null, null],
    [{ runId: '' }, 'query.runId', 'matches'],
    [{ runId: 5 }, 'query.runId', 'isString'],
    [{ limit: 100_001 }, 'query.limit', 'max'],
    [{ limit: 0 }, 'query.limit', 'min'],
    [{ verbose: true }, 'query.verbose', 'unknownField'],
  ])('GetAuditReview %j', (query, field, rule) => {
    const result = refusal(new GetAuditReview(query as AuditReviewQuery));
    if (field === null) expect(result).toBeNull();
    else expect(result).toMatchObject({ field, rule });
  });

  it('ListApprovals accepts every filter within its rule, and no filter at all', () => {
    expect(refusal(new ListApprovals())).toBeNull();
    for (const state of ['pending', 'approved', 'denied', 'cancelled'] as const) expect(refusal(new ListApprovals({ state }))).toBeNull();
    const all: ListApprovalsQuery = { state: 'pending', agent: 'clerk', runId: 'ik-0123:x.y_z', since: 0, until: 1_700_000_000_000, limit: 1000, cursor: 'c' };
    expect(refusal(new ListApprovals(all))).toBeNull();
    expect(new ListApprovals(all).query).toMatchObject(all);
    expect(refusal(new ListApprovals({ limit: 1 }))).toBeNull();
  });

  it.each<[Record<string, unknown>, string, string]>([
    [{ state: 'open' }, 'query.state', 'isIn'],
    [{ state: 'PENDING' }, 'query.state', 'isIn'],
    [{ agent: '' }, 'query.agent', 'isLength'],
    [{ agent: 'a'.repeat(129) }, 'query.agent', 'isLength'],
    [{ agent: 3 }, 'query.agent', 'isString'],
    [{ runId: '' }, 'query.runId', 'matches'],
    [{ runId: '../etc' }, 'query.runId', 'matches'],
    [{ runId: 7 }, 'query.runId', 'isString'],
    [{ since: '2026-11-30' }, 'query.since', 'isInt'],
    [{ until: 1.5 }, 'query.until', 'isInt'],
    [{ limit: 0 }, 'query.limit', 'min'],
    [{ limit: 1001 }, 'query.limit', 'max'],
    [{ limit: '10' }, 'query.limit', 'isInt'],
    [{ cursor: '' }, 'query.cursor', 'isLength'],
    [{ cursor: 'c'.repeat(1025) }, 'query.cursor', 'isLength'],
    [{ status: 'WAITING_FOR_APPROVAL' }, 'query.status', 'unknownField'],
  ])('ListApprovals refuses %j naming %s (%s)', (query, field, rule) => {
    expect(refusal(new ListApprovals(query as ListApprovalsQuery))).toMatchObject({ field, rule });
  });

  it('ListApprovals refuses a query that is not an object, and a __proto__ key', () => {
    expect(refusal(new ListApprovals('state=pending' as unknown as ListApprovalsQuery))).toMatchObject({ field: 'query', rule: 'nestedValidation' });
    expect(refusal(new ListApprovals(null as unknown as ListApprovalsQuery))).toMatchObject({ field: 'query' });
    expect(refusal(new ListApprovals(JSON.parse('{"__proto__": {"state": "pending"}}') as ListApprovalsQuery))).toMatchObject({ field: 'query.__proto__', rule: 'unknownField' });
  });

  it('ListApprovals names the refused field with the message of its rule', () => {
    expect(refusal(new ListApprovals({ since: 'yesterday' } as unknown as ListApprovalsQuery))).toEqual({
      field: 'query.since',
      rule: 'isInt',
      message: 'since must be ms since the epoch (an integer)',
    });
  });
});
