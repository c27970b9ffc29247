import { interpolate, interpolateDocument, InterpolationError } from './compose-interpolation';

const env = new Map([
  ['SET', 'value'],
  ['EMPTY', ''],
]);

describe('interpolate (Compose rules)', () => {
  it.each([
    ['${SET}', 'value'],
    ['$SET/x', 'value/x'],
    ['${UNSET}', ''],
    ['${UNSET:-dflt}', 'dflt'],
    ['${EMPTY:-dflt}', 'dflt'],
    ['${EMPTY-dflt}', ''],
    ['${UNSET-dflt}', 'dflt'],
    ['${SET:-dflt}', 'value'],
    ['${SET:+alt}', 'alt'],
    ['${EMPTY:+alt}', ''],
    ['${EMPTY+alt}', 'alt'],
    ['${UNSET:-${SET}}', 'value'],
    ['cost: $$5', 'cost: $5'],
    ['127.0.0.1:${PORT:-3000}:3000', '127.0.0.1:3000:3000'],
  ])('%s -> %s', (text, expected) => {
    expect(interpolate(text, env)).toBe(expected);
  });

  it('refuses an unset or empty required variable with its message, as Compose refuses the file', () => {
    expect(() => interpolate('${EMPTY:?set it in .env}', env)).toThrow(new InterpolationError('EMPTY', 'set it in .env'));
    expect(() => interpolate('${UNSET?}', env)).toThrow('required variable UNSET is missing a value');
    expect(() => interpolate('${EMPTY:?set it}', env)).toThrow('required variable EMPTY is missing a value: set it');
    expect(interpolate('${EMPTY?never}', env)).toBe('');
  });

  it('interpolates every string of a document and collects the variables it names', () => {
    const used = new Set<string>();
    expect(interpolateDocument({ a: ['${SET}', 1, { b: '${UNSET:-x}' }], c: true }, env, used)).toEqual({ a: ['value', 1, { b: 'x' }], c: true });
    expect([...used].sort()).toEqual(['SET', 'UNSET']);
  });
});
