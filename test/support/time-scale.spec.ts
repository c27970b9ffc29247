import { DEFAULT_TIME_SCALE, timeScale } from './time-scale';

describe('TEST_TIME_SCALE', () => {
  it('is 3 when unset or empty, and the number given otherwise', () => {
    expect(DEFAULT_TIME_SCALE).toBe(3);
    expect(timeScale({})).toBe(3);
    expect(timeScale({ TEST_TIME_SCALE: ' ' })).toBe(3);
    expect(timeScale({ TEST_TIME_SCALE: '1' })).toBe(1);
    expect(timeScale({ TEST_TIME_SCALE: '2.5' })).toBe(2.5);
  });

  it.each(['0', '0.5', '-2', 'fast', 'NaN', 'Infinity'])('refuses %s, naming the variable', (value) => {
    expect(() => timeScale({ TEST_TIME_SCALE: value })).toThrow(`TEST_TIME_SCALE must be a number of at least 1, got "${value}"`);
  });
});
