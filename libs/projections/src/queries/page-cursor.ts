import { InvalidQueryError } from '../errors/invalid-query.error';

/** Where a page of a newest-first list ended: the sort key of its last row. */
export interface PageCursor {
  readonly requestedAt: number;
  /** The row's id, the tie-breaker: a run id, or an approval id. */
  readonly id: string;
}

/** The lists paged newest first, each with its own cursors. */
export type PagedList = 'listRuns' | 'listApprovals';

/** The tag of each list's cursors; a runs cursor has none (its first format, kept). */
const TAGS: Readonly<Record<PagedList, string | null>> = { listRuns: null, listApprovals: 'approvals' };

/**
 * Encodes the cursor of `list` as an opaque URL-safe token: base64url of
 * `[requestedAt, id]` for runs, `["approvals", requestedAt, id]` for approvals.
 */
export function encodePageCursor(list: PagedList, cursor: PageCursor): string {
  const tag = TAGS[list];
  const key = tag === null ? [cursor.requestedAt, cursor.id] : [tag, cursor.requestedAt, cursor.id];
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * Decodes a token made by {@link encodePageCursor} for the same list.
 * @throws InvalidQueryError (`cursor`) for anything else, another list's cursor included
 */
export function decodePageCursor(list: PagedList, token: string): PageCursor {
  const invalid = () => new InvalidQueryError('cursor', `not a cursor returned by ${list}`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const tag = TAGS[list];
  if (!Array.isArray(value)) throw invalid();
  const key: unknown[] = tag === null ? value : value[0] === tag ? value.slice(1) : [];
  if (key.length !== 2 || value.length !== key.length + (tag === null ? 0 : 1) || !Number.isSafeInteger(key[0]) || typeof key[1] !== 'string') throw invalid();
  return { requestedAt: key[0] as number, id: key[1] };
}
