import { randomUUID } from 'node:crypto';
import { InvalidEventError } from '../port/errors/invalid-event.error';
import { ExpectedRevision } from '../port/expected-revision';
import { serialiseEventData } from './serialised-data';
import { prepareAppend } from './validate-append';

const append = (data: object) => prepareAppend('s-1', [{ id: randomUUID(), type: 'Happened', data: data as Record<string, unknown> }], { expectedRevision: ExpectedRevision.ANY });

describe('serialiseEventData', () => {
  it('is JSON.stringify, and the next append of the payload stores that string', () => {
    const data = { b: 2, a: [1, { c: 'x' }], gone: undefined };
    const json = serialiseEventData(data);
    expect(json).toBe(JSON.stringify(data));
    expect(append(data).events[0]?.dataJson).toBe(json);
  });

  it('is taken by one append: a later append of the same object checks and serialises it anew', () => {
    const data: Record<string, unknown> = { a: 1 };
    serialiseEventData(data);
    expect(append(data).events[0]?.dataJson).toBe('{"a":1}');
    data['a'] = Number.NaN;
    expect(() => append(data)).toThrow(InvalidEventError);
    data['a'] = 2;
    expect(append(data).events[0]?.dataJson).toBe('{"a":2}');
  });

  it('keeps nothing for a payload that is not plain JSON data: the append refuses it with its usual error', () => {
    const data = { at: new Date(0), n: Number.POSITIVE_INFINITY };
    expect(serialiseEventData(data)).toBe(JSON.stringify(data));
    const error = (() => {
      try {
        append(data);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidEventError);
    expect((error as InvalidEventError).message).toContain('data.at is an instance of Date');
  });

  it('throws what JSON.stringify throws (a bigint, a cycle)', () => {
    expect(() => serialiseEventData({ n: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => serialiseEventData(cyclic)).toThrow(TypeError);
  });
});
