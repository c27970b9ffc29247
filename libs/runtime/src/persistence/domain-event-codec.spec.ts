import type { RunEvent } from '@agent-ledger/domain';
import { deterministicEventId, ExpectedRevision, InMemoryEventStore } from '@agent-ledger/event-store';
import { toEventData } from './domain-event-codec';

const cancel = (runId: string): RunEvent => ({ type: 'CancelRequested', data: { runId, requestedAt: 1_700_000_000_000, requestedBy: { kind: 'anonymous' } } }) as unknown as RunEvent;

describe('toEventData', () => {
  it('names ids after (stream, revision, type, JSON of the payload): the ids of stored history do not change', () => {
    const events = [cancel('r-1'), cancel('r-2')];
    const data = toEventData('run-r-1', 4n, events, {});
    expect(data.map((e) => e.id)).toEqual(events.map((e, i) => deterministicEventId(`run-r-1|${4 + i}|${e.type}|${JSON.stringify(e.data)}`)));
    // Pinned: a change of the name's input (or of its hashing) would move it, and a retried append would record the fact twice.
    expect(data[0]?.id).toBe('d79921c4-edca-5a02-8450-f7dc65005588');
  });

  it('gives the store the payload it stores as JSON.stringify writes it', async () => {
    const store = new InMemoryEventStore();
    const event = cancel('r-1');
    await store.append('run-r-1', toEventData('run-r-1', 0n, [event], {}), { expectedRevision: ExpectedRevision.NO_STREAM });
    const read = await store.readStream('run-r-1');
    expect(read.events[0]?.data).toEqual(JSON.parse(JSON.stringify(event.data)));
  });
});
