import { randomUUID } from 'node:crypto';
import { EventTooLargeError } from '../port/errors/event-too-large.error';
import { InvalidEventError } from '../port/errors/invalid-event.error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { findJsonProblem } from './json-check';
import { MAX_APPEND_SIZE } from './limits';
import { assertExpectedRevision, isUuid, prepareAppend } from './validate-append';

const event = (override: Record<string, unknown> = {}) => ({ id: randomUUID(), type: 'Happened', data: { a: 1 }, ...override });
const errorOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('no error thrown');
};

describe('findJsonProblem', () => {
  it.each([
    [{ a: 1, b: 'x', c: null, d: true, e: [1, { f: [] }], g: undefined }, undefined],
    [Object.assign(Object.create(null) as object, { a: 1 }), undefined],
    [{ a: () => 1 }, 'data.a is a function'],
    [{ a: [1, 2n] }, 'data.a[1] is a bigint'],
    [{ a: Number.NaN }, 'data.a is NaN'],
    [{ a: -Infinity }, 'data.a is -Infinity'],
    [{ a: Symbol('s') }, 'data.a is a symbol'],
    [{ a: [undefined] }, 'data.a[0] is undefined'],
    [{ a: new Map() }, 'data.a is an instance of Map'],
    [{ 'odd key': { at: new Date(0) } }, 'data["odd key"].at is an instance of Date'],
    // eslint-disable-next-line no-sparse-arrays
    [{ a: [1, , 3] }, 'data.a[1] is a hole'],
    [{ [Symbol('k')]: 1 }, 'data has symbol keys'],
  ])('%p -> %p', (value, problem) => {
    const found = findJsonProblem(value, 'data');
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('finds cycles but accepts shared (non-circular) references', () => {
    const shared = { x: 1 };
    expect(findJsonProblem({ a: shared, b: shared }, 'data')).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic['inner'] = { back: cyclic };
    expect(findJsonProblem(cyclic, 'data')).toBe('data.inner.back is a circular reference');
  });

  it('draws the depth bound at the same level on the quick check and the full walk', () => {
    const nested = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { v };
      return v;
    };
    expect(findJsonProblem(nested(4), 'data', 3)).toBeUndefined();
    expect(findJsonProblem(nested(5), 'data', 3)).toMatch(/nested deeper than 3 levels/);
  });

  it('bounds the depth', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(findJsonProblem({ deep }, 'data')).toMatch(/nested deeper than/);
  });
});

describe('prepareAppend', () => {
  it('serialises once, lower-cases ids, and measures UTF-8 bytes of type + data + metadata', () => {
    const id = randomUUID().toUpperCase();
    const prepared = prepareAppend('run-1', [{ id, type: 'Été', data: { s: '✓' }, metadata: { $correlationId: 'c' } }], {
      expectedRevision: 'any',
    });
    const [e] = prepared.events;
    expect(e).toEqual({
      id: id.toLowerCase(),
      type: 'Été',
      dataJson: '{"s":"✓"}',
      metadataJson: '{"$correlationId":"c"}',
      size: Buffer.byteLength('Été') + Buffer.byteLength('{"s":"✓"}') + Buffer.byteLength('{"$correlationId":"c"}'),
    });
    expect(prepareAppend('run-1', [event()], { expectedRevision: 'any' }).events[0]?.metadataJson).toBe('{}');
  });

  it('names the field and the index of the first bad event', () => {
    const error = errorOf(() => prepareAppend('run-1', [event(), event({ metadata: { schemaVersion: 1.5 } })], { expectedRevision: 'any' }));
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(error).toMatchObject({ field: 'metadata', eventIndex: 1 });
    expect(errorOf(() => prepareAppend('run-1', [null as never], { expectedRevision: 'any' }))).toMatchObject({ field: 'event', eventIndex: 0 });
    expect(errorOf(() => prepareAppend('run-1', 'x' as never, { expectedRevision: 'any' }))).toMatchObject({ field: 'events' });
    expect(errorOf(() => prepareAppend('run-1', [event({ type: 'a\u0001' })], { expectedRevision: 'any' }))).toMatchObject({ field: 'type' });
    expect(errorOf(() => prepareAppend('run-1', [event({ type: 'x'.repeat(257) })], { expectedRevision: 'any' }))).toMatchObject({ field: 'type' });
    expect(errorOf(() => prepareAppend('run-1', [event({ metadata: { $causationId: '' } })], { expectedRevision: 'any' }))).toMatchObject({
      field: 'metadata',
    });
  });

  it('accepts an event of exactly the limit and rejects one byte more', () => {
    const overhead = Buffer.byteLength('T') + Buffer.byteLength('{"b":""}') + Buffer.byteLength('{}');
    const exact = { id: randomUUID(), type: 'T', data: { b: 'x'.repeat(MAX_APPEND_SIZE - overhead) } };
    expect(prepareAppend('run-1', [exact], { expectedRevision: 'any' }).events[0]?.size).toBe(MAX_APPEND_SIZE);
    const over = { ...exact, data: { b: 'x'.repeat(MAX_APPEND_SIZE - overhead + 1) } };
    expect(errorOf(() => prepareAppend('run-1', [over], { expectedRevision: 'any' }))).toEqual(expect.any(EventTooLargeError));
    expect(errorOf(() => prepareAppend('run-1', [over], { expectedRevision: 'any' }))).toMatchObject({ size: MAX_APPEND_SIZE + 1, limit: MAX_APPEND_SIZE });
  });

  it('checks the expected revision', () => {
    expect(assertExpectedRevision(0n)).toBe(0n);
    expect(assertExpectedRevision('no_stream')).toBe('no_stream');
    expect(errorOf(() => assertExpectedRevision(3))).toEqual(expect.any(InvalidOptionError));
    expect((errorOf(() => assertExpectedRevision(3)) as Error).message).toMatch(/bigint/);
    expect(errorOf(() => prepareAppend('run-1', [event()], null as never))).toEqual(expect.any(InvalidOptionError));
  });

  it('recognises UUIDs of any version and case', () => {
    expect(isUuid(randomUUID())).toBe(true);
    expect(isUuid('6BA7B810-9DAD-11D1-80B4-00C04FD430C8')).toBe(true);
    expect(isUuid('6ba7b810-9dad-11d1-80b4-00c04fd430c')).toBe(false);
    expect(isUuid('{6ba7b810-9dad-11d1-80b4-00c04fd430c8}')).toBe(false);
    expect(isUuid(42)).toBe(false);
  });
});
