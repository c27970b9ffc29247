import { InvalidQueryError } from '../errors/invalid-query.error';

/** Where a page of runs ended: the sort key of its last run. */
export interface RunCursor {
  readonly requestedAt: number;
  readonly runId: string;
}

/** Encodes a cursor as an opaque URL-safe token. */
export function encodeRunCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.requestedAt, cursor.runId]), 'utf8').toString('base64url');
}

/**
 * Decodes a token made by {@link encodeRunCursor}.
 * @throws InvalidQueryError (`cursor`) for anything else
 */
export function decodeRunCursor(token: string): RunCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidQueryError('cursor', 'not a cursor returned by listRuns');
  }
  if (!Array.isArray(value) || value.length !== 2 || !Number.isSafeInteger(value[0]) || typeof value[1] !== 'string') {
    throw new InvalidQueryError('cursor', 'not a cursor returned by listRuns');
  }
  return { requestedAt: value[0] as number, runId: value[1] };
}
