import type { CommandResult, QueryResult } from '@nestjs/cqrs';
import { InvalidFieldError } from '@agent-ledger/domain';
import { BUS_PROVIDERS } from './bus-providers';
import { CancelRunHandler } from './cancel-run.handler';
import { GetRunStateHandler } from './get-run-state.handler';
import { StartRunHandler } from './start-run.handler';
import { CancelRun } from './cancel-run.command';
import type { CancelRunResult } from './cancel-run.command';
import { GetRunState } from './get-run-state.query';
import type { RunStateAnswer } from './get-run-state.query';
import { MessageValidationError, ValidatedCommandHandler, ValidatedQueryHandler, validateMessage } from '@agent-ledger/validation';
import { StartRun } from './start-run.command';
import type { StartRunFields, StartRunResult } from './start-run.command';

/** The error `validateMessage` throws for a message, or null when it passes. */
function refusal(message: object): MessageValidationError | null {
  try {
    validateMessage(message);
    return null;
  } catch (error) {
    if (error instanceof MessageValidationError) return error;
    throw error;
  }
}

const startRun = (fields: Record<string, unknown>) => new StartRun(fields as unknown as StartRunFields);
const OPS = { kind: 'bus', id: 'ops' } as const;
const valid = { agent: 'clerk', input: 'close T-1', principal: OPS };

describe('StartRun validation', () => {
  it.each([
    [{ agent: 'clerk', input: null, principal: OPS }],
    [{ agent: 'clerk', input: { nested: [1, 'two', true, null] }, mode: 'interactive', principal: { kind: 'apiKey', id: 'ci' } }],
    [{ agent: 'clerk', input: 'x', principal: { kind: 'development' } }],
    [{ ...valid, mode: 'queued', runId: 'run-1.a_b:c' }],
    [{ ...valid, idempotencyKey: 'close T-1 (2026)' }],
  ])('accepts %j', (fields) => {
    expect(refusal(startRun(fields))).toBeNull();
  });

  it.each([
    ['agent', { input: 'x', principal: OPS }, 'isString', 'agent must be a string'],
    ['agent', { agent: 7, input: 'x', principal: OPS }, 'isString', 'agent must be a string'],
    ['agent', { agent: '', input: 'x', principal: OPS }, 'isLength', 'agent must be longer than or equal to 1 characters'],
    ['agent', { agent: 'a'.repeat(129), input: 'x', principal: OPS }, 'isLength', 'agent must be shorter than or equal to 128 characters'],
    ['input', { agent: 'clerk', principal: OPS }, 'isPresent', 'input must be present (any JSON value)'],
    ['input', { agent: 'clerk', input: () => 1, principal: OPS }, 'isJsonValue', expect.stringMatching(/^input must be JSON data/)],
    ['input', { agent: 'clerk', input: { at: new Date(0), principal: OPS } }, 'isJsonValue', expect.stringMatching(/^input must be JSON data/)],
    ['input', { agent: 'clerk', input: [Number.NaN], principal: OPS }, 'isJsonValue', expect.stringMatching(/^input must be JSON data/)],
    ['mode', { ...valid, mode: 'later' }, 'isIn', 'mode must be one of the following values: interactive, queued'],
    ['runId', { ...valid, runId: 5 }, 'isString', 'runId must be a string'],
    ['runId', { ...valid, runId: '-starts-with-dash' }, 'matches', expect.stringMatching(/^runId must be 1 to 128 letters/)],
    ['runId', { ...valid, runId: 'has space' }, 'matches', expect.stringMatching(/^runId must be 1 to 128 letters/)],
    ['idempotencyKey', { ...valid, idempotencyKey: '' }, 'matches', expect.stringMatching(/^idempotencyKey must be 1 to 255 printable ASCII/)],
    ['idempotencyKey', { ...valid, idempotencyKey: ' leading' }, 'matches', expect.stringMatching(/^idempotencyKey must be 1 to 255/)],
    ['idempotencyKey', { ...valid, idempotencyKey: 'k'.repeat(256) }, 'matches', expect.stringMatching(/^idempotencyKey must be 1 to 255/)],
    ['colour', { ...valid, colour: 'red' }, 'unknownField', 'property colour should not exist'],
    // An optional field may be left out, not set to null: null is checked by its rules (it was let through once).
    ['mode', { ...valid, mode: null }, 'isIn', 'mode must be one of the following values: interactive, queued'],
    ['runId', { ...valid, runId: null }, 'isString', 'runId must be a string'],
    ['idempotencyKey', { ...valid, idempotencyKey: null }, 'isString', 'idempotencyKey must be a string'],
    // Who starts the run: required and typed, never a name of the caller's choosing.
    ['principal', { agent: 'clerk', input: 'x' }, 'isObject', expect.stringMatching(/^principal must be the principal of the caller/)],
    ['principal', { ...valid, principal: 'ops' }, 'isObject', expect.stringMatching(/^principal must be the principal of the caller/)],
    ['principal.kind', { ...valid, principal: { kind: 'unverified', id: 'ops' } }, 'isIn', 'kind must be "bus", "apiKey" or "development"'],
    ['principal.id', { ...valid, principal: { kind: 'bus', id: ' ' } }, 'principalId', 'id must be a non-empty string of at most 200 characters'],
    ['requestedBy', { ...valid, requestedBy: 'someone-else' }, 'unknownField', 'property requestedBy should not exist'],
  ])('names %s: %j', (field, fields, rule, message) => {
    const error = refusal(startRun(fields));
    expect(error).toBeInstanceOf(InvalidFieldError);
    expect(error).toMatchObject({ code: 'INVALID_FIELD', failureClass: 'clientError', field, rule, message, messageType: 'StartRun' });
    expect(error?.issues[0]).toEqual({ field, rule, message });
  });

  it('reports every broken field, one rule each, the first one as the error', () => {
    const error = refusal(startRun({ agent: 3, mode: 'x', extra: true }));
    expect(error?.issues.map((i) => [i.field, i.rule])).toEqual([
      ['extra', 'unknownField'],
      ['agent', 'isString'],
      ['input', 'isPresent'],
      ['mode', 'isIn'],
      ['principal', 'isObject'],
    ]);
    expect(error?.field).toBe('extra');
  });

  it.each(['__proto__', 'constructor', 'toString'])('refuses a %s key as an unknown field, without changing the prototype', (key) => {
    const command = startRun(JSON.parse(`{"agent":"clerk","input":1,"${key}":{"polluted":true}}`) as Record<string, unknown>);
    expect(Object.getPrototypeOf(command)).toBe(StartRun.prototype);
    expect(refusal(command)).toMatchObject({ field: key, rule: 'unknownField', message: `property ${key} should not exist` });
  });

  it('reports every required field of a command built from nothing', () => {
    expect(refusal(startRun(null as unknown as Record<string, unknown>))?.issues.map((i) => i.field)).toEqual(['agent', 'input', 'principal']);
  });

  it('keeps the fields it was given, read-only', () => {
    const command = new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'clerk', input: 'x', mode: 'interactive' });
    expect(command).toMatchObject({ agent: 'clerk', input: 'x', mode: 'interactive' });
    expect(() => Object.assign(command, { agent: 'other' })).toThrow(TypeError);
  });
});

describe('CancelRun validation', () => {

  it('accepts a run id, who asks (its principal) and why', () => {
    expect(refusal(new CancelRun({ runId: 'r1', principal: OPS, reason: 'not needed' }))).toBeNull();
    expect(refusal(new CancelRun({ runId: 'r1', principal: OPS }))).toBeNull();
    expect(refusal(new CancelRun({ runId: 'r1', principal: { kind: 'apiKey', id: 'ops' } }))).toBeNull();
    expect(refusal(new CancelRun({ runId: 'r1', principal: { kind: 'development' } }))).toBeNull();
  });

  it.each([
    ['runId', { principal: OPS }, 'isString'],
    ['runId', { runId: 'a/b', principal: OPS }, 'matches'],
    ['principal', { runId: 'r1' }, 'isObject'],
    ['principal', { runId: 'r1', principal: 'ops' }, 'isObject'],
    ['principal', { runId: 'r1', principal: null }, 'isObject'],
    ['principal.kind', { runId: 'r1', principal: { kind: 'root', id: 'ops' } }, 'isIn'],
    ['principal.kind', { runId: 'r1', principal: { kind: 'unverified', id: 'ops' } }, 'isIn'],
    ['principal.name', { runId: 'r1', principal: { kind: 'unverified', name: 'ops' } }, 'unknownField'],
    ['principal.id', { runId: 'r1', principal: { kind: 'bus' } }, 'principalId'],
    ['principal.id', { runId: 'r1', principal: { kind: 'bus', id: ' ' } }, 'principalId'],
    ['principal.id', { runId: 'r1', principal: { kind: 'bus', id: 'x'.repeat(201) } }, 'principalId'],
    ['principal.id', { runId: 'r1', principal: { kind: 'development', id: 'ops' } }, 'principalId'],
    ['principal.role', { runId: 'r1', principal: { kind: 'bus', id: 'ops', role: 'admin' } }, 'unknownField'],
    ['requestedBy', { runId: 'r1', principal: OPS, requestedBy: 'someone-else' }, 'unknownField'],
    ['reason', { runId: 'r1', principal: OPS, reason: 4 }, 'isString'],
    ['reason', { runId: 'r1', principal: OPS, reason: 'x'.repeat(501) }, 'isLength'],
    ['force', { runId: 'r1', principal: OPS, force: true }, 'unknownField'],
    ['reason', { runId: 'r1', principal: OPS, reason: null }, 'isString'],
  ])('names %s: %j', (field, fields, rule) => {
    expect(refusal(new CancelRun(fields as never))).toMatchObject({ field, rule, messageType: 'CancelRun' });
  });
});

describe('GetRunState validation', () => {
  it.each([
    ['runId', {}, 'isString'],
    ['runId', { runId: '' }, 'matches'],
    ['runId', { runId: 'r'.repeat(129) }, 'matches'],
    ['at', { runId: 'r1', at: 3 }, 'unknownField'],
  ])('names %s: %j', (field, fields, rule) => {
    expect(refusal(new GetRunState(fields as never))).toMatchObject({ field, rule, messageType: 'GetRunState' });
  });
});

describe('typed results', () => {
  it('infers each message result type from its class', () => {
    // Compile-time checks: these assignments fail `npm run typecheck` if a result type drifts.
    const start: StartRunResult = {} as CommandResult<StartRun>;
    const cancel: CancelRunResult = {} as CommandResult<CancelRun>;
    const state: RunStateAnswer = {} as QueryResult<GetRunState>;
    const narrowed = (result: StartRunResult): string | null => (result.mode === 'interactive' ? result.run.answer : result.runId);
    expect([start, cancel, state, typeof narrowed]).toHaveLength(4);
  });
});

describe('the public handlers', () => {
  it('validate before they delegate: a refused command never reaches the runtime', async () => {
    const processor = { process: jest.fn(), load: jest.fn() };
    const interactive = { run: jest.fn() };
    const clock = { now: () => 0 };
    await expect(new StartRunHandler(processor as never, {} as never, interactive as never, {} as never, {} as never, clock).execute(startRun({ agent: '' }))).rejects.toBeInstanceOf(MessageValidationError);
    await expect(new CancelRunHandler(processor as never, clock).execute(new CancelRun({ runId: 'r 1', principal: { kind: 'bus', id: 'x' } }))).rejects.toMatchObject({ field: 'runId' });
    await expect(new GetRunStateHandler(processor as never).execute(new GetRunState({ runId: '' }))).rejects.toMatchObject({ field: 'runId' });
    expect(processor.process).not.toHaveBeenCalled();
    expect(processor.load).not.toHaveBeenCalled();
    expect(interactive.run).not.toHaveBeenCalled();
  });

  it('all extend the validating bases', () => {
    for (const handler of BUS_PROVIDERS.filter((provider: { readonly name: string }) => provider.name.endsWith('Handler'))) {
      expect(handler.prototype instanceof ValidatedCommandHandler || handler.prototype instanceof ValidatedQueryHandler).toBe(true);
    }
  });
});
