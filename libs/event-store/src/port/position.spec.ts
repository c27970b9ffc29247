import { InvalidPositionError } from './errors/invalid-position.error';
import { comparePositions, parsePosition, positionFromParts, positionToParts, positionToToken } from './position';

describe('Position', () => {
  it('round-trips through its string token, with EventStoreDB-sized numbers', () => {
    const p = positionFromParts({ commit: 18446744073709551615n, prepare: 18446744073709551614n });
    expect(positionToToken(p)).toBe('18446744073709551615:18446744073709551614');
    expect(positionToParts(parsePosition(positionToToken(p)))).toEqual({ commit: 18446744073709551615n, prepare: 18446744073709551614n });
  });

  it('orders by commit, then prepare, numerically (not as strings)', () => {
    const at = (c: bigint, p: bigint) => positionFromParts({ commit: c, prepare: p });
    expect(comparePositions(at(9n, 9n), at(10n, 10n))).toBeLessThan(0);
    expect(comparePositions(at(10n, 2n), at(10n, 1n))).toBeGreaterThan(0);
    expect(comparePositions(at(5n, 5n), at(5n, 5n))).toBe(0);
  });

  it('orders every pair as the numbers they hold, across digit counts and at the 64-bit edge', () => {
    const values = [0n, 1n, 9n, 10n, 11n, 99n, 100n, 123n, 132n, 1000n, 9007199254740993n, 18446744073709551614n, 18446744073709551615n];
    const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
    for (const c1 of values)
      for (const p1 of [0n, 7n, 10n])
        for (const c2 of values)
          for (const p2 of [0n, 7n, 10n]) {
            const expected = c1 !== c2 ? (c1 < c2 ? -1 : 1) : p1 !== p2 ? (p1 < p2 ? -1 : 1) : 0;
            expect([c1, p1, c2, p2, sign(comparePositions(positionFromParts({ commit: c1, prepare: p1 }), positionFromParts({ commit: c2, prepare: p2 })))]).toEqual([c1, p1, c2, p2, expected]);
          }
  });

  it.each(['', '1', '01:1', '1:2:3', 'a:b'])('refuses to order the token %j', (token) => {
    const valid = parsePosition('1:1');
    expect(() => comparePositions(token as never, valid)).toThrow(InvalidPositionError);
    expect(() => comparePositions(valid, token as never)).toThrow(InvalidPositionError);
  });

  it.each(['', '1', ':', '1:', 'a:b', '-1:0', '01:1', '1:2:3', ' 1:1', '1:1 ', '1e3:1'])('rejects the token %j', (token) => {
    expect(() => parsePosition(token)).toThrow(InvalidPositionError);
  });

  it('rejects negative parts', () => {
    expect(() => positionFromParts({ commit: -1n, prepare: 0n })).toThrow(InvalidPositionError);
  });
});
