import type { RecordedEvent } from '@agent-ledger/event-store';
import { positionFromParts } from '@agent-ledger/event-store';
import { streamedEventOf } from './sse-frame';

const recorded = (type: string, data: Record<string, unknown>, metadata: Record<string, unknown>): RecordedEvent => ({
  id: '00000000-0000-4000-8000-000000000001',
  streamName: 'run-r1',
  type,
  revision: 3n,
  position: positionFromParts({ commit: 7n, prepare: 7n }),
  data,
  metadata: metadata as RecordedEvent['metadata'],
  created: new Date(0),
});

describe('streamedEventOf: an event as the SSE streams send it', () => {
  it('sends a version 1 decision in its current shape: the free-text actor as an unverified principal, and says which version it sends', () => {
    const sent = streamedEventOf(recorded('ApprovalGranted', { runId: 'r1', decidedBy: 'alice', reason: null }, { schemaVersion: 1, $correlationId: 'r1' }));
    expect(sent.data).toEqual({ runId: 'r1', decidedBy: { kind: 'unverified', name: 'alice' }, reason: null });
    expect(sent.metadata).toEqual({ schemaVersion: 2, $correlationId: 'r1' });
    expect(streamedEventOf(recorded('CancelRequested', { requestedBy: 'key:ops' }, {})).data).toEqual({ requestedBy: { kind: 'unverified', name: 'key:ops' } });
  });

  it('sends a current event, and a type it does not know, as stored', () => {
    const current = recorded('ApprovalGranted', { decidedBy: { kind: 'apiKey', id: 'ops' } }, { schemaVersion: 2 });
    expect(streamedEventOf(current)).toMatchObject({ data: current.data, metadata: { schemaVersion: 2 } });
    const unknown = recorded('SomethingNew', { x: 1 }, { schemaVersion: 5 });
    expect(streamedEventOf(unknown)).toMatchObject({ data: { x: 1 }, metadata: { schemaVersion: 5 } });
  });
});
