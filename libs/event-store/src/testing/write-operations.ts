import type { ExpectedRevision } from '../port/expected-revision';
import type { PreparedAppend } from '../validation/validate-append';
import { prepareAppend } from '../validation/validate-append';
import type { WriteOperation } from '../postgres/write-batch';

/** The event id numbered `n` (a UUID whose last group is `n`). */
export const eventIdOf = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** An append of the events numbered `ids` (type `T<n>`, data `{ n }`), prepared as the adapters prepare one. */
export const preparedAppend = (stream: string, ids: readonly number[], expectedRevision: ExpectedRevision): PreparedAppend =>
  prepareAppend(stream, ids.map((n) => ({ id: eventIdOf(n), type: `T${n}`, data: { n } })), { expectedRevision });

/** A batch's append operation. */
export const appendOperation = (stream: string, ids: readonly number[], expectedRevision: ExpectedRevision): WriteOperation => ({
  kind: 'append',
  append: preparedAppend(stream, ids, expectedRevision),
});

/** A batch's append to several streams in one commit, its parts as `[stream, ids, expectedRevision]`. */
export const appendToStreamsOperation = (...parts: Array<[string, number[], ExpectedRevision]>): WriteOperation => ({
  kind: 'appendToStreams',
  appends: parts.map(([stream, ids, expectedRevision]) => preparedAppend(stream, ids, expectedRevision)),
});
