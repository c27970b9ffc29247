import { InvalidPositionError } from './errors/invalid-position.error';

declare const positionBrand: unique symbol;

/**
 * The place of an event in the store's global order (`$all`). Opaque to
 * callers: obtain it from a recorded event or an append result, store it as a
 * checkpoint (it is a string token, JSON-safe: `String(position)` or
 * {@link positionToToken}), read it back with {@link parsePosition}, and order
 * two positions with {@link comparePositions}. Never compute with it.
 *
 * The token encodes EventStoreDB's `{commit, prepare}` pair as
 * `"<commit>:<prepare>"`; the embedded and in-memory stores use their global
 * sequence number for both.
 *
 * @remarks Positions of different stores are not comparable.
 */
export type Position = string & { readonly [positionBrand]: 'Position' };

/** The two numbers behind a {@link Position} (for adapters only). */
export interface PositionParts {
  /** EventStoreDB's commit position; the global sequence number in the embedded store. */
  readonly commit: bigint;
  /** EventStoreDB's prepare position; equal to `commit` in the embedded store. */
  readonly prepare: bigint;
}

const TOKEN = /^(0|[1-9][0-9]{0,19}):(0|[1-9][0-9]{0,19})$/;

/** Builds a position from its parts. For adapters; callers never need it. */
export function positionFromParts(parts: PositionParts): Position {
  if (parts.commit < 0n || parts.prepare < 0n) throw new InvalidPositionError(`${parts.commit}:${parts.prepare}`);
  return `${parts.commit}:${parts.prepare}` as Position;
}

/** The parts of a position. For adapters; callers never need it. */
export function positionToParts(position: Position): PositionParts {
  const match = TOKEN.exec(position);
  if (!match) throw new InvalidPositionError(String(position));
  return { commit: BigInt(match[1] as string), prepare: BigInt(match[2] as string) };
}

/** The string token of a position, to store as a checkpoint or send as an SSE `id`. */
export function positionToToken(position: Position): string {
  return position;
}

/**
 * Parses a token produced by {@link positionToToken} (or `String(position)`).
 * @throws InvalidPositionError when the token is not a position token.
 */
export function parsePosition(token: string): Position {
  if (typeof token !== 'string' || !TOKEN.exec(token)) throw new InvalidPositionError(String(token));
  return token as Position;
}

/** Orders two positions of the same store: negative if `a` is before `b`, 0 if equal, positive if after. */
export function comparePositions(a: Position, b: Position): number {
  const colonA = checkedColon(a);
  const colonB = checkedColon(b);
  return compareDigits(a, 0, colonA, b, 0, colonB) || compareDigits(a, colonA + 1, a.length, b, colonB + 1, b.length);
}

/** Where a valid token's colon is. @throws InvalidPositionError when `position` is not a position token */
function checkedColon(position: Position): number {
  if (typeof position !== 'string' || !TOKEN.test(position)) throw new InvalidPositionError(String(position));
  return position.indexOf(':');
}

/** Orders two runs of decimal digits without leading zeros (as the token has them): the longer is larger, else the first digit that differs. */
function compareDigits(a: string, aFrom: number, aTo: number, b: string, bFrom: number, bTo: number): number {
  if (aTo - aFrom !== bTo - bFrom) return aTo - aFrom < bTo - bFrom ? -1 : 1;
  for (let i = 0; i < aTo - aFrom; i++) {
    const d = a.charCodeAt(aFrom + i) - b.charCodeAt(bFrom + i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
