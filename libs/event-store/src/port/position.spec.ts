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

  it.each(['', '1', ':', '1:', 'a:b', '-1:0', '01:1', '1:2:3', ' 1:1', '1:1 ', '1e3:1'])('rejects the token %j', (token) => {
    expect(() => parsePosition(token)).toThrow(InvalidPositionError);
  });

  it('rejects negative parts', () => {
    expect(() => positionFromParts({ commit: -1n, prepare: 0n })).toThrow(InvalidPositionError);
  });
});
