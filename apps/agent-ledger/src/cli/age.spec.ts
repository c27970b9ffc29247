import { ageOf, timeAndAge } from './age';

describe('ages', () => {
  const now = Date.UTC(2026, 11, 1, 12, 0, 0);
  it.each([
    [0, '0 s ago'],
    [59_999, '59 s ago'],
    [60_000, '1 min ago'],
    [59 * 60_000 + 59_000, '59 min ago'],
    [3_600_000, '1 h ago'],
    [3_600_000 + 5 * 60_000, '1 h 5 min ago'],
    [24 * 3_600_000, '1 d ago'],
    [50 * 3_600_000, '2 d 2 h ago'],
    [-1, 'in the future'],
  ])('%d ms before now reads "%s"', (before, text) => {
    expect(ageOf(now - before, now)).toBe(text);
  });

  it('gives the absolute time, then the age', () => {
    expect(timeAndAge(now - 180_000, now)).toBe('2026-12-01T11:57:00.000Z (3 min ago)');
  });
});
