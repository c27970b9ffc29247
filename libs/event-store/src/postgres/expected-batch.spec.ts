import { ExpectedRevision } from '../port/expected-revision';
import { sequenceOf } from '../core/sequence-reads';
import { appendOperation as append, appendToStreamsOperation as appendToStreams, eventIdOf as ID } from '../testing/write-operations';
import { expectedBatchOf, outcomesOfExpectedBatch } from './expected-batch';

describe('expectedBatchOf', () => {
  it("flattens a batch of exact appends into the function's arrays: the parts in order, each event naming its part and offset", () => {
    const batch = expectedBatchOf([append('s-a', [1, 2], 4n), appendToStreams(['s-b', [3], ExpectedRevision.NO_STREAM], ['s-c', [4, 5, 6], 0n])]);
    expect(batch).toEqual({
      streams: ['s-a', 's-b', 's-c'],
      expected: ['4', null, '0'],
      counts: [2, 1, 3],
      parts: [1, 1, 2, 3, 3, 3],
      offsets: [0, 1, 0, 0, 1, 2],
      ids: [1, 2, 3, 4, 5, 6].map(ID),
      types: ['T1', 'T2', 'T3', 'T4', 'T5', 'T6'],
      data: [1, 2, 3, 4, 5, 6].map((n) => JSON.stringify({ n })),
      metadata: Array(6).fill('{}'),
    });
  });

  it('leaves to the decision after a read any batch with a delete, an any or stream_exists append', () => {
    const exact = append('s-a', [1], 0n);
    expect(expectedBatchOf([exact, { kind: 'delete', streamName: 's-b', expectedRevision: 0n, tombstone: false }])).toBeNull();
    expect(expectedBatchOf([exact, append('s-b', [2], ExpectedRevision.ANY)])).toBeNull();
    expect(expectedBatchOf([exact, appendToStreams(['s-b', [2], 0n], ['s-c', [3], ExpectedRevision.STREAM_EXISTS])])).toBeNull();
    expect(expectedBatchOf([])).toBeNull();
  });
});

describe('outcomesOfExpectedBatch', () => {
  it("gives each append its last revision and its last event's position, positions following the head in event order", () => {
    const operations = [append('s-a', [1, 2], 4n), appendToStreams(['s-b', [3], ExpectedRevision.NO_STREAM], ['s-c', [4, 5, 6], 0n])];
    const { outcomes, lastPosition } = outcomesOfExpectedBatch(operations, 100, [5, 0, 1]);
    expect(lastPosition).toBe(106);
    const [first, second] = outcomes.map((outcome) => (outcome.ok ? outcome.value : outcome.error));
    expect(first).toMatchObject({ nextExpectedRevision: 6n });
    expect(sequenceOf((first as { position: Parameters<typeof sequenceOf>[0] }).position)).toBe(102);
    const parts = second as Array<{ nextExpectedRevision: bigint; position: Parameters<typeof sequenceOf>[0] }>;
    expect(parts.map((part) => part.nextExpectedRevision)).toEqual([0n, 3n]);
    expect(parts.map((part) => sequenceOf(part.position))).toEqual([103, 106]);
  });
});
