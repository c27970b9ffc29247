import { InvalidQueryError } from '../errors/invalid-query.error';

/** Where a page of requests for approval ended: the sort key of its last row. */
export interface ApprovalCursor {
  readonly requestedAt: number;
  readonly approvalId: string;
}

/** The tag that tells an approvals cursor from a runs cursor. */
const TAG = 'approvals';

/** Encodes a cursor as an opaque URL-safe token. */
export function encodeApprovalCursor(cursor: ApprovalCursor): string {
  return Buffer.from(JSON.stringify([TAG, cursor.requestedAt, cursor.approvalId]), 'utf8').toString('base64url');
}

/**
 * Decodes a token made by {@link encodeApprovalCursor}.
 * @throws InvalidQueryError (`cursor`) for anything else, a runs cursor included
 */
export function decodeApprovalCursor(token: string): ApprovalCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidQueryError('cursor', 'not a cursor returned by listApprovals');
  }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== TAG || !Number.isSafeInteger(value[1]) || typeof value[2] !== 'string') {
    throw new InvalidQueryError('cursor', 'not a cursor returned by listApprovals');
  }
  return { requestedAt: value[1] as number, approvalId: value[2] };
}
