import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { ExpectedRevision } from '../port/expected-revision';
import type { ReadStreamOptions, ReadStreamResult } from '../port/read-options';
import { Direction, ReadFrom } from '../port/read-options';
import { direction as checkDirection, fromRevision as checkFromRevision, positiveInteger } from '../validation/validate-options';
import type { StoredEventRow } from './stored-event-row';
import { toRecordedEvent } from './stored-event-row';

/** The state of a stream in a sequence-based store (embedded, in-memory, PostgreSQL). */
export interface StreamState {
  readonly tombstoned: boolean;
  /** Revisions below this one are soft-deleted. */
  readonly firstVisibleRevision: number;
  /** Last revision ever written, -1 if none. */
  readonly lastRevision: number;
}

/**
 * Reads rows of one stream: forwards, revisions `from`..`to` ascending;
 * backwards, revisions `to`..`from` descending (`from <= to` always), at most `limit`.
 */
export type StreamRowReader = (from: number, to: number, direction: Direction, limit: number) => readonly StoredEventRow[];

/** What {@link planStreamRead} decided: an answer without rows, or the range of rows to read. */
export type StreamReadPlan =
  | { readonly kind: 'done'; readonly result: ReadStreamResult }
  | { readonly kind: 'rows'; readonly from: number; readonly to: number; readonly direction: Direction; readonly limit: number; readonly currentRevision: bigint };

/**
 * Checks a `readStream`'s options and decides, from the stream's state, which
 * revisions to read (for stores that read the rows asynchronously).
 * @throws InvalidOptionError, StreamDeletedError
 */
export function planStreamRead(streamName: string, state: StreamState | undefined, options: ReadStreamOptions | undefined): StreamReadPlan {
  const direction = checkDirection(options?.direction);
  const from = checkFromRevision(options?.fromRevision);
  const maxCount = positiveInteger(options?.maxCount, 'maxCount', Number.MAX_SAFE_INTEGER);
  if (state?.tombstoned) throw new StreamDeletedError(streamName);
  if (!state || state.lastRevision < state.firstVisibleRevision) {
    return { kind: 'done', result: { streamExists: false, currentRevision: ExpectedRevision.NO_STREAM, events: [] } };
  }
  const first = state.firstVisibleRevision;
  const last = state.lastRevision;
  const at = (r: bigint): number => (r > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(r));
  let lo: number;
  let hi: number;
  if (direction === Direction.FORWARDS) {
    lo = from === undefined || from === ReadFrom.START ? first : from === ReadFrom.END ? last : Math.max(first, at(from));
    hi = last;
  } else {
    lo = first;
    hi = from === undefined || from === ReadFrom.END ? last : from === ReadFrom.START ? first : Math.min(last, at(from));
  }
  if (lo > hi) return { kind: 'done', result: { streamExists: true, currentRevision: BigInt(last), events: [] } };
  return { kind: 'rows', from: lo, to: hi, direction, limit: maxCount, currentRevision: BigInt(last) };
}

/** `readStream` for sequence-based stores, given the stream's state and a row reader. */
export function readStreamRows(
  streamName: string,
  state: StreamState | undefined,
  options: ReadStreamOptions | undefined,
  readRows: StreamRowReader,
): ReadStreamResult {
  const plan = planStreamRead(streamName, state, options);
  if (plan.kind === 'done') return plan.result;
  const rows = readRows(plan.from, plan.to, plan.direction, plan.limit);
  return { streamExists: true, currentRevision: plan.currentRevision, events: rows.map(toRecordedEvent) };
}
