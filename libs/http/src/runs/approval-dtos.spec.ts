import type { ArgumentMetadata } from '@nestjs/common';
import { RequestValidationError } from '../validation/request-validation.error';
import { createApiValidationPipe } from '../validation/validation-pipe';
import { DecideApprovalDto, ListApprovalsQueryDto, SubmitInputDto } from './run-dtos';

const pipe = createApiValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });
const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });

/** The first issue of a refused value, or null when it is accepted. */
async function refusal(value: unknown, metadata: ArgumentMetadata): Promise<{ field: string; rule: string } | null> {
  try {
    await pipe.transform(value, metadata);
    return null;
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    const first = error.issues[0];
    return first === undefined ? null : { field: first.field, rule: first.rule };
  }
}

describe('the body of POST /runs/{runId}/approval (DecideApprovalDto)', () => {
  it.each([
    [{ decision: 'approve' }],
    [{ decision: 'deny', reason: 'not this file' }],
    [{ decision: 'approve', round: 0 }],
    [{ decision: 'deny', round: 19, reason: 'x'.repeat(500) }],
  ])('accepts %j', async (value) => {
    expect(await refusal(value, body(DecideApprovalDto))).toBeNull();
    expect(await pipe.transform(value, body(DecideApprovalDto))).toBeInstanceOf(DecideApprovalDto);
  });

  it.each<[string, unknown, string, string]>([
    ['no decision', {}, 'decision', 'isIn'],
    ['a decision that is neither', { decision: 'maybe' }, 'decision', 'isIn'],
    ['an unknown field', { decision: 'approve', priority: 'high' }, 'priority', 'unknownField'],
    ['who decides (it is the key id, never the body)', { decision: 'approve', decidedBy: 'mallory' }, 'decidedBy', 'unknownField'],
    ['an empty reason', { decision: 'deny', reason: '' }, 'reason', 'isLength'],
    ['a reason over 500 characters', { decision: 'deny', reason: 'x'.repeat(501) }, 'reason', 'isLength'],
    ['a reason that is not a string', { decision: 'deny', reason: 5 }, 'reason', 'isString'],
    ['a round below 0', { decision: 'approve', round: -1 }, 'round', 'min'],
    ['a round over 19', { decision: 'approve', round: 20 }, 'round', 'max'],
    ['a round that is not an integer', { decision: 'approve', round: 1.5 }, 'round', 'isInt'],
    ['a round as a string', { decision: 'approve', round: '1' }, 'round', 'isInt'],
    ['a body that is not an object', ['approve'], 'body', 'isObject'],
  ])('refuses %s', async (_what, value, field, rule) => {
    expect(await refusal(value, body(DecideApprovalDto))).toEqual({ field, rule });
  });
});

describe('the body of POST /runs/{runId}/input (SubmitInputDto)', () => {
  it.each([[{ input: 'notes.txt' }], [{ input: null }], [{ input: { file: 'a', lines: [1, 2] } }], [{ input: 0 }], [{ input: false }], [{ input: [] }]])('accepts %j', async (value) => {
    expect(await refusal(value, body(SubmitInputDto))).toBeNull();
    expect(((await pipe.transform(value, body(SubmitInputDto))) as SubmitInputDto).input).toEqual(value.input);
  });

  it.each<[string, unknown, string, string]>([
    ['no input', {}, 'input', 'isPresent'],
    ['an unknown field', { input: 'x', submittedBy: 'mallory' }, 'submittedBy', 'unknownField'],
    ['a body that is not an object', '"x"', 'body', 'isObject'],
  ])('refuses %s', async (_what, value, field, rule) => {
    expect(await refusal(value, body(SubmitInputDto))).toEqual({ field, rule });
  });
});

describe('the query of GET /approvals (ListApprovalsQueryDto)', () => {
  it('accepts every filter, turning times (ms or ISO 8601) and the limit into numbers', async () => {
    const dto = (await pipe.transform(
      { state: 'pending', agent: 'approver', runId: 'r-1', since: '1795999826709', until: '2026-11-30T00:00:00Z', limit: '10', cursor: 'abc' },
      query(ListApprovalsQueryDto),
    )) as ListApprovalsQueryDto;
    expect(dto).toMatchObject({ state: 'pending', agent: 'approver', runId: 'r-1', since: 1795999826709, until: Date.parse('2026-11-30T00:00:00Z'), limit: 10, cursor: 'abc' });
    expect(await refusal({}, query(ListApprovalsQueryDto))).toBeNull();
    for (const state of ['pending', 'approved', 'denied', 'cancelled']) expect(await refusal({ state }, query(ListApprovalsQueryDto))).toBeNull();
  });

  it.each<[string, Record<string, string>, string, string]>([
    ['an unknown state', { state: 'PENDING' }, 'state', 'isIn'],
    ['a limit of 0', { limit: '0' }, 'limit', 'min'],
    ['a limit over 1000', { limit: '1001' }, 'limit', 'max'],
    ['a time that is neither ms nor ISO 8601', { since: 'yesterday' }, 'since', 'isInt'],
    ['a bad run id', { runId: '../etc' }, 'runId', 'matches'],
    ['an unknown parameter', { status: 'pending' }, 'status', 'unknownField'],
  ])('refuses %s', async (_what, value, field, rule) => {
    expect(await refusal(value, query(ListApprovalsQueryDto))).toEqual({ field, rule });
  });
});
