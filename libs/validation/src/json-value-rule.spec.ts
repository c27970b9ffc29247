import { jsonValueIssue, MAX_MESSAGE_DEPTH } from './json-value-rule';

/** `[[...[1]...]]`: `levels` arrays, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('jsonValueIssue: the one rule of a JSON value', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'x'],
    ['false', false],
    ['a finite number', -1.5e300],
    ['an object without a prototype', Object.create(null) as unknown],
    ['prototype-like keys as data', JSON.parse('{"__proto__":{"a":1},"constructor":1,"prototype":[]}') as unknown],
    ['a value shared twice, without a cycle', (() => { const shared = { a: 1 }; return { x: shared, y: [shared] }; })()],
    ['the deepest value a field holds (the message being level 1)', nested(MAX_MESSAGE_DEPTH - 1)],
  ])('accepts %s', (_name, value) => {
    expect(jsonValueIssue(value, 'input')).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ['NaN', Number.NaN],
    ['a nested Infinity', { a: [1, Number.POSITIVE_INFINITY] }],
    ['undefined inside an object', { a: undefined }],
    ['a function', () => 1],
    ['a bigint', 1n],
    ['a Date', { at: new Date(0) }],
    ['a Map', new Map()],
    ['a cycle', (() => { const cyclic: Record<string, unknown> = {}; cyclic['self'] = { back: cyclic }; return cyclic; })()],
  ])('refuses %s as not JSON data', (_name, value) => {
    expect(jsonValueIssue(value, 'input')).toEqual({ rule: 'isJsonValue', message: 'input must be JSON data (null, booleans, finite numbers, strings, arrays and plain objects)' });
  });

  it('refuses a value nested too deep, at any depth, without overflowing the stack', () => {
    for (const levels of [MAX_MESSAGE_DEPTH, 100_000]) {
      expect(jsonValueIssue(nested(levels), 'input')).toEqual({ rule: 'maxDepth', message: `input must not nest deeper than ${MAX_MESSAGE_DEPTH} levels (the body being the first)` });
    }
  });
});
