import type { AppendDecision, StreamView } from '../core/append-decision';
import { decideAppend, decideDelete } from '../core/append-decision';
import type { StreamState } from '../core/stream-reads';
import type { AppendResult } from '../port/event-store';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import type { ExpectedRevision } from '../port/expected-revision';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import type { Position } from '../port/position';
import { positionFromParts } from '../port/position';
import type { PreparedAppend } from '../validation/validate-append';

/** One write of a batch: an append, an append to several streams in one commit, or a soft delete / tombstone. */
export type WriteOperation =
  | { readonly kind: 'append'; readonly append: PreparedAppend }
  | { readonly kind: 'appendToStreams'; readonly appends: readonly PreparedAppend[] }
  | { readonly kind: 'delete'; readonly streamName: string; readonly expectedRevision: ExpectedRevision; readonly tombstone: boolean };

/** The streams an operation writes to. */
export function streamsOf(operation: WriteOperation): readonly string[] {
  if (operation.kind === 'append') return [operation.append.streamName];
  if (operation.kind === 'appendToStreams') return operation.appends.map((part) => part.streamName);
  return [operation.streamName];
}

/**
 * Takes the next batch off `queue` (in place): up to `maxSize` operations in
 * queue order, at most one per stream. An operation on a stream already in
 * the batch (on any of its streams) stays queued, ahead of later ones, for the next batch: each
 * operation of a batch is decided against the stream's committed state, and
 * operations on one stream still run in the order they were made.
 */
export function takeBatch<T>(queue: T[], maxSize: number, streamsOfItem: (item: T) => readonly string[]): T[] {
  const batch: T[] = [];
  const streams = new Set<string>();
  const rest: T[] = [];
  for (const item of queue) {
    const names = streamsOfItem(item);
    if (batch.length < maxSize && !names.some((name) => streams.has(name))) {
      for (const name of names) streams.add(name);
      batch.push(item);
    } else rest.push(item);
  }
  queue.splice(0, queue.length, ...rest);
  return batch;
}

/** A stored event found by a look-up: its revision and position. */
export interface FoundEvent {
  readonly eventId: string;
  readonly revision: number;
  readonly position: number;
}

/**
 * The events an append's decision may need, read before deciding (the
 * decision itself is synchronous): by id for `any` / `stream_exists` on a
 * stream with visible events; by revision for an exact expected revision the
 * stream is already past. None otherwise (the common case: an append at the
 * stream's revision, or a new stream).
 */
export type EventLookup =
  | { readonly kind: 'ids'; readonly streamName: string; readonly ids: readonly string[]; readonly fromRevision: number }
  | { readonly kind: 'revisions'; readonly streamName: string; readonly from: number; readonly to: number };

/** The look-ups an operation's appends need on their streams in `states` (a stream without a row is absent). */
export function lookupsFor(operation: WriteOperation, states: ReadonlyMap<string, StreamState>): EventLookup[] {
  const appends = operation.kind === 'append' ? [operation.append] : operation.kind === 'appendToStreams' ? operation.appends : [];
  return appends.flatMap((append) => lookupFor(append, states.get(append.streamName)) ?? []);
}

/** The look-up an append needs on a stream in `state` (undefined: the stream has no row), if any. */
export function lookupFor(append: PreparedAppend, state: StreamState | undefined): EventLookup | undefined {
  const { streamName, events, expectedRevision } = append;
  const first = state?.firstVisibleRevision ?? 0;
  const last = state?.lastRevision ?? -1;
  if (events.length === 0 || last < first || state?.tombstoned === true) return undefined;
  if (expectedRevision === Expected.ANY || expectedRevision === Expected.STREAM_EXISTS) {
    return { kind: 'ids', streamName, ids: events.map((e) => e.id), fromRevision: first };
  }
  const expectedNumber = expectedRevision === Expected.NO_STREAM ? first - 1 : Number(expectedRevision);
  if (last <= expectedNumber) return undefined;
  return { kind: 'revisions', streamName, from: Math.max(first, expectedNumber + 1), to: expectedNumber + events.length };
}

/** An event row to insert. */
export interface EventRowToWrite {
  readonly position: number;
  readonly streamName: string;
  readonly revision: number;
  readonly eventId: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

/** A stream row to write (the whole row: the batch holds the write lock, so the state it read is current). */
export interface StreamRowToWrite {
  readonly streamName: string;
  readonly lastRevision: number;
  readonly truncateBefore: number;
  readonly tombstoned: boolean;
}

/** What an operation of a batch gives: its result, or the port's refusal. */
export type OperationOutcome = { readonly ok: true; readonly value: AppendResult | readonly AppendResult[] | undefined } | { readonly ok: false; readonly error: Error };

/** A decided batch: each operation's outcome and the rows to write. */
export interface BatchPlan {
  readonly outcomes: readonly OperationOutcome[];
  readonly events: readonly EventRowToWrite[];
  readonly streams: readonly StreamRowToWrite[];
  /** The log head after the batch (unchanged when no event is written). */
  readonly lastPosition: number;
}

/**
 * Decides every operation of a batch with the shared rules
 * (`core/append-decision.ts`), against the states and events read under the
 * write lock, and assigns positions from `lastPosition + 1` in batch order.
 * A refused operation (conflict, deleted stream) is an outcome of its own
 * and writes nothing (an append to several streams is refused whole when one
 * part is); the others are unaffected. The batch holds at most one
 * operation per stream ({@link takeBatch}).
 */
export function planBatch(
  operations: readonly WriteOperation[],
  lastPosition: number,
  states: ReadonlyMap<string, StreamState>,
  found: ReadonlyMap<string, readonly FoundEvent[]>,
): BatchPlan {
  const outcomes: OperationOutcome[] = [];
  const events: EventRowToWrite[] = [];
  const streams: StreamRowToWrite[] = [];
  let head = lastPosition;
  for (const operation of operations) {
    if (operation.kind === 'delete') {
      const { streamName } = operation;
      const state = states.get(streamName);
      const decision = decideDelete(viewOf(state, found.get(streamName) ?? []), operation.expectedRevision);
      if (decision.kind === 'deleted') outcomes.push({ ok: false, error: new StreamDeletedError(streamName) });
      else if (decision.kind === 'conflict') outcomes.push({ ok: false, error: new WrongExpectedRevisionError(streamName, operation.expectedRevision, decision.actual) });
      else {
        const last = state?.lastRevision ?? -1;
        streams.push({
          streamName,
          lastRevision: last,
          truncateBefore: operation.tombstone ? (state?.firstVisibleRevision ?? 0) : last + 1,
          tombstoned: operation.tombstone,
        });
        outcomes.push({ ok: true, value: undefined });
      }
      continue;
    }
    const parts = operation.kind === 'append' ? [operation.append] : operation.appends;
    // Every part is decided before any is written: one refused, and the operation writes nothing.
    const decided: Array<{ part: PreparedAppend; decision: AppendDecision }> = [];
    let refusal: Error | undefined;
    for (const part of parts) {
      const decision = decideAppend(viewOf(states.get(part.streamName), found.get(part.streamName) ?? []), part.events.map((e) => e.id), part.expectedRevision);
      if (decision.kind === 'deleted') refusal = new StreamDeletedError(part.streamName);
      else if (decision.kind === 'conflict') refusal = new WrongExpectedRevisionError(part.streamName, part.expectedRevision, decision.actual);
      if (refusal !== undefined) break;
      decided.push({ part, decision });
    }
    if (refusal !== undefined) {
      outcomes.push({ ok: false, error: refusal });
      continue;
    }
    const results = decided.map(({ part, decision }): AppendResult => {
      const { streamName } = part;
      if (decision.kind === 'idempotent') {
        const at = (found.get(streamName) ?? []).find((e) => e.revision === decision.lastRevision);
        if (at === undefined) throw new Error(`internal: no stored event at revision ${decision.lastRevision} of ${streamName} for an idempotent append`);
        return { nextExpectedRevision: BigInt(decision.lastRevision), position: toPosition(at.position) };
      }
      if (decision.kind !== 'write') throw new Error(`internal: ${decision.kind} decision planned for ${streamName}`);
      let revision = decision.firstRevision;
      for (const event of part.events) {
        head += 1;
        events.push({ position: head, streamName, revision, eventId: event.id, type: event.type, data: event.dataJson, metadata: event.metadataJson });
        revision += 1;
      }
      streams.push({ streamName, lastRevision: revision - 1, truncateBefore: states.get(streamName)?.firstVisibleRevision ?? 0, tombstoned: false });
      return { nextExpectedRevision: BigInt(revision - 1), position: toPosition(head) };
    });
    outcomes.push({ ok: true, value: operation.kind === 'append' ? results[0] : results });
  }
  return { outcomes, events, streams, lastPosition: head };
}

/** The stream as `decideAppend` sees it, from its state and the events looked up. */
function viewOf(state: StreamState | undefined, found: readonly FoundEvent[]): StreamView {
  const first = state?.firstVisibleRevision ?? 0;
  const byRevision = new Map<number, string>();
  const revisionById = new Map<string, number>();
  for (const event of found) {
    if (event.revision < first) continue;
    byRevision.set(event.revision, event.eventId);
    const known = revisionById.get(event.eventId);
    if (known === undefined || event.revision < known) revisionById.set(event.eventId, event.revision);
  }
  return {
    tombstoned: state?.tombstoned ?? false,
    firstVisibleRevision: first,
    lastRevision: state?.lastRevision ?? -1,
    eventIdAt: (revision) => byRevision.get(revision),
    revisionOfEventId: (id) => revisionById.get(id),
  };
}

/** The port's position of a sequence number. */
export function toPosition(sequence: number): Position {
  return positionFromParts({ commit: BigInt(sequence), prepare: BigInt(sequence) });
}
