import type { AppendResult } from '../port/event-store';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import type { PreparedAppend } from '../validation/validate-append';
import type { BatchPlan, OperationOutcome, WriteOperation } from './write-batch';
import { toPosition } from './write-batch';

/**
 * A batch of appends that each expect an exact revision (a number, or
 * `no_stream`), as the arguments of the schema's `append_expected` function:
 * one round trip and one commit when every stream is where its append
 * expects it (the common case: a decider's append). The parts are the
 * batch's appends in order; the events are flattened, each naming its part
 * (1-based) and its offset in it.
 */
export interface ExpectedBatch {
  readonly streams: readonly string[];
  /** The revision each part expects its stream at; null for `no_stream`. */
  readonly expected: ReadonlyArray<string | null>;
  readonly counts: readonly number[];
  readonly parts: readonly number[];
  readonly offsets: readonly number[];
  readonly ids: readonly string[];
  readonly types: readonly string[];
  readonly data: readonly string[];
  readonly metadata: readonly string[];
}

/** The batch's parts in order: each operation's appends. */
function partsOf(operations: readonly WriteOperation[]): PreparedAppend[] | null {
  const parts: PreparedAppend[] = [];
  for (const operation of operations) {
    if (operation.kind === 'delete') return null;
    if (operation.kind === 'append') parts.push(operation.append);
    else parts.push(...operation.appends);
  }
  return parts;
}

/**
 * The batch as one call of `append_expected`, or null when an operation is
 * not an append at an exact expected revision (a delete, `any`,
 * `stream_exists`): those are decided in TypeScript
 * (`planBatch`), after a read of the streams.
 */
export function expectedBatchOf(operations: readonly WriteOperation[]): ExpectedBatch | null {
  const appends = partsOf(operations);
  if (appends === null || appends.length === 0) return null;
  const batch = { streams: [] as string[], expected: [] as Array<string | null>, counts: [] as number[], parts: [] as number[], offsets: [] as number[], ids: [] as string[], types: [] as string[], data: [] as string[], metadata: [] as string[] };
  for (const [index, append] of appends.entries()) {
    const { expectedRevision, events } = append;
    if (typeof expectedRevision !== 'bigint' && expectedRevision !== Expected.NO_STREAM) return null;
    batch.streams.push(append.streamName);
    batch.expected.push(typeof expectedRevision === 'bigint' ? expectedRevision.toString() : null);
    batch.counts.push(events.length);
    events.forEach((event, offset) => {
      batch.parts.push(index + 1);
      batch.offsets.push(offset);
      batch.ids.push(event.id);
      batch.types.push(event.type);
      batch.data.push(event.dataJson);
      batch.metadata.push(event.metadataJson);
    });
  }
  return batch;
}

/**
 * The outcomes of a batch `append_expected` wrote: `head` is the log head
 * before it, `firsts` the first revision written to each part's stream (in
 * part order). Positions follow the head in the order of the events.
 */
export function outcomesOfExpectedBatch(operations: readonly WriteOperation[], head: number, firsts: readonly number[]): Pick<BatchPlan, 'outcomes' | 'lastPosition'> {
  let position = head;
  let part = 0;
  const resultOf = (append: PreparedAppend): AppendResult => {
    const first = firsts[part++];
    if (first === undefined) throw new Error(`internal: append_expected gave ${firsts.length} first revisions for a batch of more parts`);
    position += append.events.length;
    return { nextExpectedRevision: BigInt(first + append.events.length - 1), position: toPosition(position) };
  };
  const outcomes = operations.map((operation): OperationOutcome => {
    if (operation.kind === 'append') return { ok: true, value: resultOf(operation.append) };
    if (operation.kind === 'appendToStreams') return { ok: true, value: operation.appends.map(resultOf) };
    throw new Error('internal: a delete in a batch of expected appends');
  });
  return { outcomes, lastPosition: position };
}
