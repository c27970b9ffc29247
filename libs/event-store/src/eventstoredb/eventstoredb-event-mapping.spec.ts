import { StoreFailureError } from '../port/errors/store-failure.error';
import { parsePosition, positionToParts } from '../port/position';
import type { ClientResolvedEvent } from './eventstoredb-event-mapping';
import { isSystemRecord, toClientEvent, toRecordedEvent } from './eventstoredb-event-mapping';
import { fromClientPosition, toClientPosition } from './eventstoredb-position';

const id = '6F1A4C2E-0000-4000-8000-000000000001';

function resolved(overrides: Record<string, unknown> = {}): ClientResolvedEvent {
  return {
    event: {
      streamId: 'run-1',
      id,
      revision: 4n,
      type: 'StepStarted',
      created: new Date(1_700_000_000_123),
      data: { a: 1 },
      metadata: { $correlationId: 'c', $causationId: 'k', schemaVersion: 2 },
      isJson: true,
      position: { commit: 300n, prepare: 299n },
      ...overrides,
    },
  } as ClientResolvedEvent;
}

describe('EventStoreDB position codec', () => {
  it('encodes {commit, prepare} as the port token and back', () => {
    const position = fromClientPosition({ commit: 12_345_678_901_234n, prepare: 12_345_678_901_000n });
    expect(position).toBe('12345678901234:12345678901000');
    expect(toClientPosition(parsePosition(position))).toEqual({ commit: 12_345_678_901_234n, prepare: 12_345_678_901_000n });
    expect(positionToParts(position).commit).toBe(12_345_678_901_234n);
  });
});

describe('EventStoreDB event mapping', () => {
  it('sends the validated metadata bytes as a plain Uint8Array (a Buffer would be re-serialised by client 6.2.1)', () => {
    const event = toClientEvent({ id, type: 'T', dataJson: '{"x":[1,2]}', metadataJson: '{"$correlationId":"c"}', size: 0 });
    expect(event).toMatchObject({ id, contentType: 'application/json', type: 'T', data: { x: [1, 2] } });
    expect(event.metadata?.constructor).toBe(Uint8Array);
    expect(Buffer.from(event.metadata as Uint8Array).toString('utf8')).toBe('{"$correlationId":"c"}');
  });

  it('reads every field back: lower-case id, revision, position, metadata with the reserved keys, created as a Date', () => {
    expect(toRecordedEvent(resolved())).toEqual({
      streamName: 'run-1',
      id: id.toLowerCase(),
      type: 'StepStarted',
      revision: 4n,
      position: '300:299',
      data: { a: 1 },
      metadata: { $correlationId: 'c', $causationId: 'k', schemaVersion: 2 },
      created: new Date(1_700_000_000_123),
    });
  });

  it('reads absent or non-JSON metadata as {}, and JSON bytes as data', () => {
    expect(toRecordedEvent(resolved({ metadata: undefined }))?.metadata).toEqual({});
    expect(toRecordedEvent(resolved({ metadata: new Uint8Array([0xff]) }))?.metadata).toEqual({});
    expect(toRecordedEvent(resolved({ isJson: false, data: new TextEncoder().encode('{"b":2}') }))?.data).toEqual({ b: 2 });
  });

  it('hides EventStoreDB records and rejects events that are not JSON objects', () => {
    expect(isSystemRecord('$$run-1', '$metadata')).toBe(true);
    expect(isSystemRecord('run-1', '$streamDeleted')).toBe(true);
    expect(isSystemRecord('run-1', 'StepStarted')).toBe(false);
    expect(toRecordedEvent(resolved({ type: '$streamDeleted' }))).toBeUndefined();
    expect(toRecordedEvent({})).toBeUndefined();
    expect(() => toRecordedEvent(resolved({ data: 'not json' }))).toThrow(StoreFailureError);
    expect(() => toRecordedEvent(resolved({ position: undefined }))).toThrow(StoreFailureError);
  });
});
