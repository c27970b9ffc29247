import type { ArgumentMetadata } from '@nestjs/common';
import { AuditReviewQueryDto, CancelRunDto, ListRunsQueryDto, StartRunDto, SubmitInputDto } from '../../libs/http/src/runs/run-dtos';
import { createHash } from 'node:crypto';
import { RequestValidationError } from '../../libs/http/src/validation/request-validation.error';
import { ApiValidationPipe } from '../../libs/http/src/validation/validation-pipe';
import type { CancelRunFields, StartRunFields, SubmitRunInputFields, ValidationIssue } from '@agent-ledger/runtime';
import { CancelRun, MAX_MESSAGE_DEPTH, MessageValidationError, runIdForIdempotencyKey, StartRun, SubmitRunInput, validateMessage } from '@agent-ledger/runtime';
import { GetAuditReview, ListRuns } from '@agent-ledger/projections';
import type { AuditReviewQuery, ListRunsQuery } from '@agent-ledger/projections';

/*
 * The bus refuses a command with the same field, rule and message as the
 * HTTP API refuses the same input: both are checked here, side by side, with
 * the API's own ValidationPipe and DTOs.
 */

const pipe = new ApiValidationPipe();

async function httpIssues(metatype: ArgumentMetadata['metatype'], body: Record<string, unknown>, type: ArgumentMetadata['type'] = 'body'): Promise<readonly ValidationIssue[]> {
  try {
    await pipe.transform(body, { type, metatype, data: undefined });
    return [];
  } catch (error) {
    if (error instanceof RequestValidationError) return error.issues;
    throw error;
  }
}

function busIssues(message: object): readonly ValidationIssue[] {
  try {
    validateMessage(message);
    return [];
  } catch (error) {
    if (error instanceof MessageValidationError) return error.issues;
    throw error;
  }
}

const START_BODIES: Record<string, unknown>[] = [
  { agent: 'clerk', input: 'x' },
  { agent: 'clerk', input: null, mode: 'interactive', idempotencyKey: 'key 1' },
  { input: 'x' },
  { agent: 12, input: 'x' },
  { agent: '', input: 'x' },
  { agent: 'a'.repeat(129), input: 'x' },
  { agent: 'clerk' },
  { agent: 'clerk', input: 'x', mode: 'soon' },
  { agent: 'clerk', input: 'x', mode: 3 },
  { agent: 'clerk', input: 'x', runId: 7 },
  { agent: 'clerk', input: 'x', runId: '' },
  { agent: 'clerk', input: 'x', runId: '_x' },
  { agent: 'clerk', input: 'x', runId: 'r'.repeat(129) },
  { agent: 'clerk', input: 'x', idempotencyKey: '' },
  { agent: 'clerk', input: 'x', idempotencyKey: ' k' },
  { agent: 'clerk', input: 'x', idempotencyKey: 'é' },
  { agent: 'clerk', input: 'x', idempotencyKey: false },
  { agent: 'clerk', input: 'x', extra: 1 },
  { agent: 1, mode: 'no', runId: '?', idempotencyKey: '', also: true },
];

describe('the bus and the HTTP API refuse the same input alike', () => {
  it.each(START_BODIES)('StartRun %j (who starts: the HTTP caller, the bus principal)', async (body) => {
    const http = await httpIssues(StartRunDto, body);
    expect(busIssues(new StartRun({ principal: { kind: 'bus', id: 'ops' }, ...body } as unknown as StartRunFields))).toEqual(http);
  });

  it.each<Record<string, unknown>>([{ startedBy: 'ops' }, { requestedBy: 'ops' }, { principal: { kind: 'bus', id: 'ops' } }])(
    'StartRun %j: who starts the run in the body is refused over HTTP, naming it (the caller is who starts it)',
    async (body) => {
      const http = await httpIssues(StartRunDto, { agent: 'clerk', input: 'x', ...body });
      const bus = busIssues(new StartRun({ agent: 'clerk', input: 'x', principal: { kind: 'bus', id: 'ops' }, ...body } as unknown as StartRunFields));
      const actorField = Object.keys(body)[0] as string;
      expect(http).toEqual([expect.objectContaining({ field: actorField, rule: 'unknownField', message: expect.stringContaining('authenticated caller') as string })]);
      expect(bus.map(({ field, rule }) => ({ field, rule }))).toEqual(actorField === 'principal' ? [] : [{ field: actorField, rule: 'unknownField' }]);
    },
  );

  it.each<Record<string, unknown>>([
    {},
    { reason: 'done' },
    { reason: '' },
    { reason: 5 },
    { reason: 'x'.repeat(501) },
    { force: true },
    { reason: '', force: true },
  ])('CancelRun %j (runId, a path parameter over HTTP, given; who asks: the HTTP caller, the bus principal)', async (body) => {
    const http = await httpIssues(CancelRunDto, body);
    expect(busIssues(new CancelRun({ runId: 'r1', principal: { kind: 'bus', id: 'ops' }, ...body } as unknown as CancelRunFields))).toEqual(http);
  });

  it.each<Record<string, unknown>>([{ requestedBy: 'ops' }, { requestedBy: 'ops', reason: 'done' }, { requestedBy: '' }, { principal: { kind: 'bus', id: 'ops' } }])(
    'CancelRun %j: an actor in the body is refused on both, naming it (the HTTP message says the caller is the actor)',
    async (body) => {
      const http = await httpIssues(CancelRunDto, body);
      const bus = busIssues(new CancelRun({ runId: 'r1', principal: { kind: 'bus', id: 'ops' }, ...body } as unknown as CancelRunFields));
      const actorField = Object.keys(body).find((key) => key !== 'reason') as string;
      expect(http).toEqual([expect.objectContaining({ field: actorField, rule: 'unknownField', message: expect.stringContaining('authenticated caller') as string })]);
      // On the bus `principal` is the command's own field: a stated one is accepted, a requestedBy is unknown.
      expect(bus.map(({ field, rule }) => ({ field, rule }))).toEqual(actorField === 'principal' ? [] : [{ field: actorField, rule: 'unknownField' }]);
    },
  );

  /** A query's filters as an URL's query string carries them: every value a string. */
  function asQueryString(filters: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(filters).map(([key, value]) => [key, typeof value === 'number' ? String(value) : value]));
  }

  /** The bus names a filter inside the query's `query` field; the URL names it alone. */
  function unnested(issues: readonly ValidationIssue[]): ValidationIssue[] {
    return issues.map((issue) => ({ ...issue, field: issue.field.replace(/^query\./, '') }));
  }

  it.each<Record<string, unknown>>([
    {},
    { status: 'RUNNING', reason: 'COMPLETED', agent: 'clerk', since: 5, until: 10, limit: 1000, cursor: 'c' },
    { status: 'DONE' },
    { reason: 'BECAUSE' },
    { agent: '' },
    { agent: 'a'.repeat(129) },
    { limit: 0 },
    { limit: 1001 },
    { limit: 2.5 },
    { cursor: '' },
    { offset: 3 },
    { status: 'x', limit: 0, page: 2 },
  ])('ListRuns %j (GET /runs, values as query-string text)', async (filters) => {
    const http = await httpIssues(ListRunsQueryDto, asQueryString(filters), 'query');
    expect(unnested(busIssues(new ListRuns(filters as ListRunsQuery)))).toEqual(http);
  });

  it.each<Record<string, unknown>>([{}, { runId: 'run-1', limit: 100_000 }, { runId: '' }, { runId: '-x' }, { limit: 0 }, { limit: 100_001 }, { all: 'yes' }])(
    'GetAuditReview %j (GET /audit/review, values as query-string text)',
    async (filters) => {
      const http = await httpIssues(AuditReviewQueryDto, asQueryString(filters), 'query');
      expect(unnested(busIssues(new GetAuditReview(filters as AuditReviewQuery)))).toEqual(http);
    },
  );

  /** `[[...[1]...]]` as JSON text: `levels` arrays. */
  function nestedText(levels: number): string {
    return `${'['.repeat(levels)}1${']'.repeat(levels)}`;
  }

  /** Input values as a client sends them: JSON text, parsed as the API parses a body. */
  const INPUTS: Record<string, string> = {
    'a string': '"close T-1"',
    null: 'null',
    'prototype-like keys as data': '{"__proto__":{"admin":true},"constructor":{"prototype":1},"prototype":[{"__proto__":null}]}',
    'a huge finite number': '1.7976931348623157e308',
    'a number that overflows to Infinity': '1e400',
    'a nested -Infinity': '{"n":[1,{"m":-1e400}]}',
    'the deepest input accepted (the message being level 1)': nestedText(MAX_MESSAGE_DEPTH - 1),
    'one level too deep': nestedText(MAX_MESSAGE_DEPTH),
    'far too deep': nestedText(20_000),
    'too deep after a non-finite number': `[1e400,${nestedText(MAX_MESSAGE_DEPTH)}]`,
    'a non-finite number after a too deep array': `[${nestedText(MAX_MESSAGE_DEPTH)},1e400]`,
  };

  it.each(Object.entries(INPUTS))('StartRun and SubmitRunInput with an input of %s: one rule of a JSON value', async (_name, text) => {
    const input = JSON.parse(text) as unknown;
    const http = await httpIssues(StartRunDto, { agent: 'clerk', input });
    expect(busIssues(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'clerk', input } as StartRunFields))).toEqual(http);
    const httpAnswer = await httpIssues(SubmitInputDto, { input });
    expect(busIssues(new SubmitRunInput({ runId: 'r1', input, principal: { kind: 'bus', id: 'ops' } } as SubmitRunInputFields))).toEqual(httpAnswer);
    expect(http).toEqual(httpAnswer);
  });

  it('refuses alike what each input rule refuses, and keeps prototype-like keys inside input as data', async () => {
    const refused = async (text: string) => (await httpIssues(StartRunDto, { agent: 'clerk', input: JSON.parse(text) as unknown })).map(({ field, rule }) => `${field} ${rule}`);
    expect(await refused(INPUTS['a number that overflows to Infinity'] as string)).toEqual(['input isJsonValue']);
    expect(await refused(INPUTS['one level too deep'] as string)).toEqual(['input maxDepth']);
    expect(await refused(INPUTS['prototype-like keys as data'] as string)).toEqual([]);
    const input = JSON.parse(INPUTS['prototype-like keys as data'] as string) as Record<string, unknown>;
    const command = new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'clerk', input } as StartRunFields);
    validateMessage(command);
    expect(Object.keys(command.input as object)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(JSON.stringify(command.input)).toBe(INPUTS['prototype-like keys as data']);
  });

  it('derives the run id of an idempotency key as the README tells clients (ik- and 32 hex digits of its SHA-256)', () => {
    // The HTTP API uses this very function; the README computes it with `sha256sum | cut -c1-32`.
    for (const key of ['a', 'close-ticket:T-1', 'report-2026-11-30', '~'.repeat(255)]) {
      expect(runIdForIdempotencyKey(key)).toBe(`ik-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}`);
    }
  });
});
