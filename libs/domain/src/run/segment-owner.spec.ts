import { formatSegmentOwner, parseSegmentOwner, segmentKindFor } from './segment-owner';

describe('segment owners', () => {
  it('format and parse kind:host:pid[:tag]', () => {
    expect(formatSegmentOwner({ kind: 'worker', host: 'box', pid: 42 })).toBe('worker:box:42');
    expect(parseSegmentOwner('interactive:box:42:s7')).toEqual({ kind: 'interactive', host: 'box', pid: 42, tag: 's7' });
    expect(parseSegmentOwner(formatSegmentOwner({ kind: 'worker', host: 'b', pid: 1, tag: 't' }))).toEqual({ kind: 'worker', host: 'b', pid: 1, tag: 't' });
  });

  it.each(['worker', 'worker:box', 'robot:box:1', 'worker:box:pid', 'worker: box:1'])('refuse %s, naming the field', (owner) => {
    expect(() => parseSegmentOwner(owner, 'data.owner')).toThrow(expect.objectContaining({ field: 'data.owner' }) as Error);
  });

  it('name which kind of segment claims each mode', () => {
    expect(segmentKindFor('queued')).toBe('worker');
    expect(segmentKindFor('interactive')).toBe('interactive');
  });
});
