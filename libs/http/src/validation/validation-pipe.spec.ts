import type { ArgumentMetadata } from '@nestjs/common';
import { CancelRunDto, DecideApprovalDto, RequeueRunDto, StartRunDto, SubmitInputDto } from '../runs/run-dtos';
import { MAX_MESSAGE_DEPTH } from '@agent-ledger/validation';
import { RequestValidationError } from './request-validation.error';
import { ApiValidationPipe } from './validation-pipe';

const pipe = new ApiValidationPipe();

function body(metatype: ArgumentMetadata['metatype']): ArgumentMetadata {
  return { type: 'body', metatype, data: undefined };
}

async function issuesOf(value: unknown, metatype: ArgumentMetadata['metatype']): Promise<unknown> {
  try {
    await pipe.transform(value, body(metatype));
    return [];
  } catch (error) {
    if (error instanceof RequestValidationError) return error.issues.map(({ field, rule }) => ({ field, rule }));
    throw error;
  }
}

/** `[[...[1]...]]`: `levels` arrays, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

// Regressions found by the HTTP fuzz suite (test/fuzz/http-api.fuzz.int-spec.ts).
describe('ApiValidationPipe: what Nest\'s pipe cannot be trusted with', () => {
  it('refuses a body nested deeper than MAX_MESSAGE_DEPTH, naming the field, instead of overflowing the stack (a 500)', async () => {
    for (const levels of [MAX_MESSAGE_DEPTH, 5000, 100_000]) {
      expect(await issuesOf({ agent: 'clerk', input: nested(levels) }, StartRunDto)).toEqual([{ field: 'input', rule: 'maxDepth' }]);
    }
    expect(await issuesOf({ reason: 'ops', resolution: nested(20_000) }, RequeueRunDto)).toEqual([{ field: 'resolution', rule: 'maxDepth' }]);
    expect(await issuesOf({ decision: 'approve', extra: nested(20_000) }, DecideApprovalDto)).toEqual([{ field: 'extra', rule: 'maxDepth' }]);
    // An empty key is named as the pipe names it: the body (the fuzz found a 400 naming the field "").
    expect(await issuesOf({ agent: 'clerk', input: 1, '': nested(200) }, StartRunDto)).toEqual([{ field: 'body', rule: 'maxDepth' }]);
    // The body is level 1: an input of MAX_MESSAGE_DEPTH - 1 levels is the deepest accepted.
    const dto = (await pipe.transform({ agent: 'clerk', input: nested(MAX_MESSAGE_DEPTH - 1) }, body(StartRunDto))) as StartRunDto;
    expect(JSON.stringify(dto.input)).toBe(JSON.stringify(nested(MAX_MESSAGE_DEPTH - 1)));
  });

  it('refuses __proto__, constructor and prototype keys as unknown fields, where Nest and class-transformer dropped them silently', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const parsed = JSON.parse(`{"agent":"clerk","input":"x",${JSON.stringify(key)}:{"polluted":true}}`) as unknown;
      expect(await issuesOf(parsed, StartRunDto)).toEqual([{ field: key, rule: 'unknownField' }]);
      const nestedKey = JSON.parse(`{"resolution":{"outcome":"executed","note":"n",${JSON.stringify(key)}:1}}`) as unknown;
      expect(await issuesOf(nestedKey, RequeueRunDto)).toEqual([{ field: `resolution.${key}`, rule: 'unknownField' }]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a run\'s input exactly as it was sent, prototype keys and all', async () => {
    const text = '{"agent":"clerk","input":{"__proto__":{"a":1},"constructor":"c","prototype":[{"constructor":{}}],"list":[1,[2]]}}';
    const dto = (await pipe.transform(JSON.parse(text), body(StartRunDto))) as StartRunDto;
    expect(dto).toBeInstanceOf(StartRunDto);
    expect(JSON.stringify(dto.input)).toBe(JSON.stringify((JSON.parse(text) as { input: unknown }).input));
    expect(Object.keys(dto.input as object)).toEqual(['__proto__', 'constructor', 'prototype', 'list']);
    const answer = (await pipe.transform(JSON.parse('{"input":{"constructor":"the answer"}}'), body(SubmitInputDto))) as SubmitInputDto;
    expect(answer.input).toEqual({ constructor: 'the answer' });
    expect((await pipe.transform({ agent: 'clerk', input: null }, body(StartRunDto))) as StartRunDto).toMatchObject({ input: null });
  });

  it('refuses an input number that is not finite (1e400 parses to Infinity) as not JSON data, naming the field', async () => {
    expect(await issuesOf(JSON.parse('{"agent":"clerk","input":{"n":[1e400]}}'), StartRunDto)).toEqual([{ field: 'input', rule: 'isJsonValue' }]);
    expect(await issuesOf(JSON.parse('{"input":-1e400}'), SubmitInputDto)).toEqual([{ field: 'input', rule: 'isJsonValue' }]);
  });

  it('refuses null for an optional body field as a value of the wrong type, where @IsOptional() let it through to the handler (a 500)', async () => {
    expect(await issuesOf({ agent: 'clerk', input: 'x', idempotencyKey: null }, StartRunDto)).toEqual([{ field: 'idempotencyKey', rule: 'isString' }]);
    expect(await issuesOf({ agent: 'clerk', input: 'x', runId: null, mode: null }, StartRunDto)).toEqual([
      { field: 'mode', rule: 'isIn' },
      { field: 'runId', rule: 'isString' },
    ]);
    expect(await issuesOf({ resolution: null }, RequeueRunDto)).toEqual([{ field: 'resolution', rule: 'nestedValidation' }]);
    expect(await issuesOf({ decision: 'approve', reason: null, round: null }, DecideApprovalDto)).toEqual([
      { field: 'reason', rule: 'isString' },
      { field: 'round', rule: 'isInt' },
    ]);
    expect(await issuesOf({ reason: null }, CancelRunDto)).toEqual([{ field: 'reason', rule: 'isString' }]);
    // Left out, they are still optional.
    expect(await issuesOf({ agent: 'clerk', input: 'x' }, StartRunDto)).toEqual([]);
    expect(await issuesOf({}, RequeueRunDto)).toEqual([]);
    expect(await issuesOf({}, CancelRunDto)).toEqual([]);
  });

  it('reports the refused field with every other field\'s first broken rule, and an input it left out is not also reported missing', async () => {
    expect(await issuesOf({ agent: 5, input: nested(10_000), mode: 'later' }, StartRunDto)).toEqual([
      { field: 'agent', rule: 'isString' },
      { field: 'mode', rule: 'isIn' },
      { field: 'input', rule: 'maxDepth' },
    ]);
    expect(await issuesOf({ agent: 'clerk' }, StartRunDto)).toEqual([{ field: 'input', rule: 'isPresent' }]);
  });
});

describe('ApiValidationPipe: a request without a body', () => {
  it('refuses it where the body is required, naming the body first, then each missing field', async () => {
    expect(await issuesOf(undefined, StartRunDto)).toEqual([
      { field: 'body', rule: 'isPresent' },
      { field: 'agent', rule: 'isString' },
      { field: 'input', rule: 'isPresent' },
    ]);
    expect(await issuesOf(undefined, DecideApprovalDto)).toEqual([
      { field: 'body', rule: 'isPresent' },
      { field: 'decision', rule: 'isIn' },
    ]);
    expect(await issuesOf(undefined, SubmitInputDto)).toEqual([
      { field: 'body', rule: 'isPresent' },
      { field: 'input', rule: 'isPresent' },
    ]);
    await expect(pipe.transform(undefined, body(StartRunDto))).rejects.toThrow('body is required: a JSON object with agent, input (the request has no body)');
  });

  it('takes it where the body is optional, as an empty DTO', async () => {
    for (const metatype of [CancelRunDto, RequeueRunDto]) {
      const dto = (await pipe.transform(undefined, body(metatype))) as object;
      expect(dto).toBeInstanceOf(metatype);
      expect(Object.values(dto).filter((value) => value !== undefined)).toEqual([]);
    }
  });

  it('names the missing fields of `{}`, not the body: `{}` is a body', async () => {
    expect(await issuesOf({}, DecideApprovalDto)).toEqual([{ field: 'decision', rule: 'isIn' }]);
  });
});

describe('ApiValidationPipe: a body never names who acts', () => {
  const messagesOf = async (value: unknown, metatype: ArgumentMetadata['metatype']) => {
    try {
      await pipe.transform(value, body(metatype));
      return [];
    } catch (error) {
      if (error instanceof RequestValidationError) return error.issues;
      throw error;
    }
  };

  it.each([
    ['requestedBy', CancelRunDto],
    ['requestedBy', RequeueRunDto],
    ['decidedBy', DecideApprovalDto],
    ['resolvedBy', RequeueRunDto],
    ['principal', CancelRunDto],
    ['actor', DecideApprovalDto],
  ] as const)('refuses %s in a %p body as an unknown field, saying that the actor is the authenticated caller and its words go in reason', async (field, dto) => {
    const valid = dto === DecideApprovalDto ? { decision: 'approve' } : {};
    expect(await messagesOf({ ...valid, [field]: 'someone-else' }, dto)).toEqual([
      { field, rule: 'unknownField', message: `${field} is not accepted: who acts is the authenticated caller (its API key), recorded by the service, never a name in the body; the caller's own words go in reason` },
    ]);
  });

  it('does not point to a reason on a route that takes none', async () => {
    const [issue] = await messagesOf({ input: 'x', submittedBy: 'someone-else' }, SubmitInputDto);
    expect(issue).toMatchObject({ field: 'submittedBy', rule: 'unknownField' });
    expect(issue?.message).toContain('authenticated caller');
    expect(issue?.message).not.toContain('reason');
  });
});
