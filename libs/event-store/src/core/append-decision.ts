import type { CurrentRevision, ExpectedRevision } from '../port/expected-revision';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';

/**
 * What an adapter knows about a stream when it checks an append, read inside
 * the write transaction. Revisions are plain numbers here (SQLite integers).
 */
export interface StreamView {
  /** The stream was tombstoned. */
  readonly tombstoned: boolean;
  /** Revisions below this one are soft-deleted (0 when never deleted). */
  readonly firstVisibleRevision: number;
  /** Revision of the stream's last event ever written, -1 if none. */
  readonly lastRevision: number;
  /** Id of the visible event at `revision`, if any. */
  eventIdAt(revision: number): string | undefined;
  /** Revision of the first visible event of this stream with `id`, if any. */
  revisionOfEventId(id: string): number | undefined;
}

/** The decision on one append. */
export type AppendDecision =
  | { readonly kind: 'write'; readonly firstRevision: number }
  | { readonly kind: 'idempotent'; readonly lastRevision: number }
  | { readonly kind: 'conflict'; readonly actual: CurrentRevision }
  | { readonly kind: 'deleted' };

/** The stream's current revision for expected-revision checks: `no_stream` when nothing is visible. */
export function currentRevisionOf(view: StreamView): CurrentRevision {
  return view.lastRevision >= view.firstVisibleRevision ? BigInt(view.lastRevision) : Expected.NO_STREAM;
}

/**
 * Decides an append, with EventStoreDB's rules (see docs/event-store.md):
 *
 * - exact revision N (and `no_stream`, which means "the revision just before
 *   the first visible one"): if the stream is at N, write. If it is before N,
 *   conflict. If it is past N, the append is idempotent when the events at
 *   N+1 ... N+k carry exactly the ids of the k events, in order; otherwise
 *   conflict (including a partial match).
 * - `any`, and `stream_exists` on an existing stream: if the first event's id
 *   is not in the stream, write. If every id is in the stream, idempotent
 *   (result: the revision of the last of them). If only some are, conflict.
 * - `stream_exists` on a missing stream: conflict.
 * - a tombstoned stream: deleted, whatever the expected revision.
 */
export function decideAppend(view: StreamView, ids: readonly string[], expected: ExpectedRevision): AppendDecision {
  if (view.tombstoned) return { kind: 'deleted' };
  const actual = currentRevisionOf(view);
  const cur = view.lastRevision;

  if (expected === Expected.ANY || expected === Expected.STREAM_EXISTS) {
    if (expected === Expected.STREAM_EXISTS && actual === Expected.NO_STREAM) return { kind: 'conflict', actual };
    let last: number | undefined;
    for (let i = 0; i < ids.length; i++) {
      const revision = view.revisionOfEventId(ids[i] as string);
      if (revision === undefined) return i === 0 ? { kind: 'write', firstRevision: cur + 1 } : { kind: 'conflict', actual };
      last = revision;
    }
    return { kind: 'idempotent', lastRevision: last as number };
  }

  const expectedNumber = expected === Expected.NO_STREAM ? view.firstVisibleRevision - 1 : Number(expected);
  if (cur === expectedNumber) return { kind: 'write', firstRevision: cur + 1 };
  if (cur < expectedNumber) return { kind: 'conflict', actual };
  for (let i = 0; i < ids.length; i++) {
    const revision = expectedNumber + 1 + i;
    if (revision < view.firstVisibleRevision || view.eventIdAt(revision) !== ids[i]) return { kind: 'conflict', actual };
  }
  return { kind: 'idempotent', lastRevision: expectedNumber + ids.length };
}

/**
 * Decides a delete (soft or tombstone): the expected revision must hold (no
 * idempotency); a tombstoned stream is deleted.
 */
export function decideDelete(
  view: StreamView,
  expected: ExpectedRevision,
): { readonly kind: 'ok' } | { readonly kind: 'conflict'; readonly actual: CurrentRevision } | { readonly kind: 'deleted' } {
  if (view.tombstoned) return { kind: 'deleted' };
  const actual = currentRevisionOf(view);
  const ok =
    expected === Expected.ANY ||
    (expected === Expected.STREAM_EXISTS && actual !== Expected.NO_STREAM) ||
    (expected === Expected.NO_STREAM && actual === Expected.NO_STREAM) ||
    (typeof expected === 'bigint' && actual === expected);
  return ok ? { kind: 'ok' } : { kind: 'conflict', actual };
}

/**
 * Checks a delete with {@link decideDelete} and throws the port's error when
 * it is refused.
 * @throws StreamDeletedError the stream is tombstoned; WrongExpectedRevisionError the expected revision does not hold.
 */
export function assertDeleteAllowed(streamName: string, view: StreamView, expected: ExpectedRevision): void {
  const decision = decideDelete(view, expected);
  if (decision.kind === 'deleted') throw new StreamDeletedError(streamName);
  if (decision.kind === 'conflict') throw new WrongExpectedRevisionError(streamName, expected, decision.actual);
}
