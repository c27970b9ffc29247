import type { AppendResult } from '../port/event-store';
import { ExpectedRevision } from '../port/expected-revision';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { sequenceOf } from '../core/sequence-reads';
import { appendOperation as append, appendToStreamsOperation as appendToStreams, eventIdOf as ID, preparedAppend as prepared } from '../testing/write-operations';
import { lookupFor, lookupsFor, planBatch, takeBatch } from './write-batch';

describe('takeBatch', () => {
  it('takes at most one operation per stream, in queue order, up to the size; the rest stays queued in order', () => {
    const queue = ['a1', 'b1', 'a2', 'c1', 'a3', 'd1', 'e1'];
    expect(takeBatch(queue, 3, (item) => [item[0] as string])).toEqual(['a1', 'b1', 'c1']);
    expect(queue).toEqual(['a2', 'a3', 'd1', 'e1']);
    expect(takeBatch(queue, 3, (item) => [item[0] as string])).toEqual(['a2', 'd1', 'e1']);
    expect(queue).toEqual(['a3']);
  });

  it('takes an operation on several streams only when none of them is in the batch yet', () => {
    const queue = [['a'], ['b', 'c'], ['c', 'd'], ['d'], ['a', 'e']];
    expect(takeBatch(queue, 10, (item) => item)).toEqual([['a'], ['b', 'c'], ['d']]);
    expect(queue).toEqual([['c', 'd'], ['a', 'e']]);
  });
});

describe('planBatch', () => {
  it('writes an append to several streams whole, its parts one after the other, or refuses it whole on one refused part', () => {
    const states = new Map([['at-0', { lastRevision: 0, firstVisibleRevision: 0, tombstoned: false }]]);
    const plan = planBatch(
      [appendToStreams(['c-a', [1], ExpectedRevision.NO_STREAM], ['at-0', [2, 3], 0n]), appendToStreams(['c-b', [4], ExpectedRevision.NO_STREAM], ['at-0', [5], 7n]), append('c-c', [6], ExpectedRevision.NO_STREAM)],
      4,
      states,
      new Map(),
    );
    expect(plan.events.map((e) => [e.position, e.streamName, e.revision])).toEqual([
      [5, 'c-a', 0],
      [6, 'at-0', 1],
      [7, 'at-0', 2],
      [8, 'c-c', 0],
    ]);
    const [whole, refused, single] = plan.outcomes;
    expect(whole?.ok && (whole.value as readonly AppendResult[]).map((r) => r.nextExpectedRevision)).toEqual([0n, 2n]);
    expect(!refused?.ok && refused?.error).toMatchObject({ streamName: 'at-0', expected: 7n, actual: 0n });
    expect(single?.ok && sequenceOf((single.value as AppendResult).position)).toBe(8);
    expect(plan.streams.map((st) => st.streamName)).toEqual(['c-a', 'at-0', 'c-c']);
  });

  it('assigns consecutive positions after the head in batch order; a refused operation takes none and fails alone', () => {
    const states = new Map([
      ['at-1', { lastRevision: 1, firstVisibleRevision: 0, tombstoned: false }],
      ['c-gone', { lastRevision: 0, firstVisibleRevision: 0, tombstoned: true }],
    ]);
    const plan = planBatch(
      [append('c-new', [1, 2], ExpectedRevision.NO_STREAM), append('at-1', [3], 0n), append('c-gone', [4], ExpectedRevision.ANY), append('at-1', [5], 1n)],
      10,
      states,
      new Map(),
    );
    expect(plan.events.map((e) => [e.position, e.streamName, e.revision])).toEqual([
      [11, 'c-new', 0],
      [12, 'c-new', 1],
      [13, 'at-1', 2],
    ]);
    expect(plan.lastPosition).toBe(13);
    const [first, conflict, deleted, last] = plan.outcomes;
    expect(first?.ok && sequenceOf((first.value as AppendResult).position)).toBe(12);
    expect(!conflict?.ok && conflict?.error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(!deleted?.ok && deleted?.error).toBeInstanceOf(StreamDeletedError);
    expect(last?.ok && last.value).toMatchObject({ nextExpectedRevision: 2n });
    expect(plan.streams).toEqual([
      { streamName: 'c-new', lastRevision: 1, truncateBefore: 0, tombstoned: false },
      { streamName: 'at-1', lastRevision: 2, truncateBefore: 0, tombstoned: false },
    ]);
  });

  it('an idempotent retry answers with the stored position of its last event and writes nothing', () => {
    const states = new Map([['c-s', { lastRevision: 1, firstVisibleRevision: 0, tombstoned: false }]]);
    const operation = append('c-s', [1, 2], ExpectedRevision.NO_STREAM);
    const lookup = lookupsFor(operation, states)[0];
    expect(lookup).toEqual({ kind: 'revisions', streamName: 'c-s', from: 0, to: 1 });
    const found = new Map([['c-s', [{ eventId: ID(1), revision: 0, position: 7 }, { eventId: ID(2), revision: 1, position: 8 }]]]);
    const plan = planBatch([operation], 20, states, found);
    expect(plan.events).toEqual([]);
    expect(plan.lastPosition).toBe(20);
    expect(plan.outcomes[0]?.ok && sequenceOf((plan.outcomes[0].value as AppendResult).position)).toBe(8);
  });

  it('needs no look-up for an append at the stream revision nor on a new stream', () => {
    expect(lookupFor(prepared('c-s', [1], 1n), { lastRevision: 1, firstVisibleRevision: 0, tombstoned: false })).toBeUndefined();
    expect(lookupFor(prepared('c-s', [1], ExpectedRevision.ANY), undefined)).toBeUndefined();
    expect(lookupFor(prepared('c-s', [1, 2], ExpectedRevision.ANY), { lastRevision: 3, firstVisibleRevision: 2, tombstoned: false })).toEqual({
      kind: 'ids',
      streamName: 'c-s',
      ids: [ID(1), ID(2)],
      fromRevision: 2,
    });
  });

  it('a soft delete moves the visible start past the last revision; a tombstone keeps it', () => {
    const states = new Map([['c-s', { lastRevision: 4, firstVisibleRevision: 2, tombstoned: false }]]);
    const soft = planBatch([{ kind: 'delete', streamName: 'c-s', expectedRevision: 4n, tombstone: false }], 0, states, new Map());
    const hard = planBatch([{ kind: 'delete', streamName: 'c-s', expectedRevision: ExpectedRevision.ANY, tombstone: true }], 0, states, new Map());
    expect(soft.streams).toEqual([{ streamName: 'c-s', lastRevision: 4, truncateBefore: 5, tombstoned: false }]);
    expect(hard.streams).toEqual([{ streamName: 'c-s', lastRevision: 4, truncateBefore: 2, tombstoned: true }]);
    const refused = planBatch([{ kind: 'delete', streamName: 'c-s', expectedRevision: 3n, tombstone: false }], 0, states, new Map());
    expect(refused.streams).toEqual([]);
    expect(refused.outcomes[0]?.ok).toBe(false);
  });
});
