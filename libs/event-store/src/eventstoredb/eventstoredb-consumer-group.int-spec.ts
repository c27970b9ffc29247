import { randomUUID } from 'node:crypto';
import { EventStoreDBClient } from '@eventstore/db-client';
import type { EsdbTestServer } from '../../../../test/support/esdb-server';
import { startEsdbTestServer } from '../../../../test/support/esdb-server';
import { scaled } from '../../../../test/support/time-scale';
import type { ConsumerGroupMembership, ConsumerGroupSettings, OfferedEvent } from '../port/consumer-groups';
import { hasConsumerGroups } from '../port/consumer-groups';
import { ConsumerGroupMismatchError } from '../port/errors/consumer-group-mismatch.error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { ExpectedRevision } from '../port/expected-revision';
import { InMemoryEventStore } from '../in-memory/in-memory-event-store';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

/*
 * Consumer groups on the protocol-level server, through the real client: the
 * group is created from the end of `$all` with an exact event-type filter,
 * checked when it exists, and hands each offered event to one member.
 */
let server: EsdbTestServer;
let store: EventStoreDbEventStore;

beforeAll(async () => {
  server = await startEsdbTestServer();
  store = EventStoreDbEventStore.connect({ connectionString: server.connectionString });
});

afterAll(async () => {
  await store.close();
  await server.stop();
});

const settings = (changes: Partial<ConsumerGroupSettings> = {}): ConsumerGroupSettings => ({
  eventTypes: ['Offered', 'AlsoOffered'],
  messageTimeoutMs: 30_000,
  maxRetryCount: 3,
  ...changes,
});

const groupName = (): string => `g-${randomUUID()}`;

async function append(category: string, type: string, n = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    ids.push(id);
    await store.append(`${category}-${randomUUID()}`, [{ id, type, data: { i } }], { expectedRevision: ExpectedRevision.NO_STREAM });
  }
  return ids;
}

/** Reads a membership in the background, acknowledging with `settle` (default: ack). */
function consume(membership: ConsumerGroupMembership, settle: (offer: OfferedEvent) => Promise<void> = (offer) => offer.ack()) {
  const received: OfferedEvent[] = [];
  const errors: unknown[] = [];
  const done = (async () => {
    try {
      for await (const offer of membership) {
        received.push(offer);
        await settle(offer);
      }
    } catch (error) {
      errors.push(error);
    }
  })();
  return { received, errors, done };
}

async function waitFor(check: () => boolean, what: string, refresh: () => Promise<void> = async () => undefined): Promise<void> {
  const deadline = Date.now() + scaled(10_000);
  for (await refresh(); !check(); await refresh()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('EventStoreDbEventStore consumer groups', () => {
  it('is a capability the EventStoreDB adapter has and the embedded stores do not', () => {
    expect(hasConsumerGroups(store)).toBe(true);
    expect(hasConsumerGroups(new InMemoryEventStore())).toBe(false);
  });

  it('creates a group once; the next ensure finds it matching; other settings are a mismatch that names the setting', async () => {
    const name = groupName();
    await expect(store.ensureConsumerGroup(name, settings())).resolves.toBe('created');
    await expect(store.ensureConsumerGroup(name, settings())).resolves.toBe('matches');
    const mismatch = store.ensureConsumerGroup(name, settings({ messageTimeoutMs: 60_000 }));
    await expect(mismatch).rejects.toBeInstanceOf(ConsumerGroupMismatchError);
    await expect(mismatch).rejects.toMatchObject({ groupName: name, setting: 'messageTimeoutMs', expected: '60000', found: '30000' });
    await expect(store.ensureConsumerGroup(name, settings({ maxRetryCount: 9 }))).rejects.toThrow(/maxRetryCount 3, but this process is configured with 9/);
  });

  it('processes racing to create one group agree on it', async () => {
    const name = groupName();
    const others = [1, 2, 3].map(() => EventStoreDbEventStore.connect({ connectionString: server.connectionString }));
    try {
      const outcomes = await Promise.all(others.map((other) => other.ensureConsumerGroup(name, settings())));
      expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'matches')).toHaveLength(2);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });

  it('refuses a bad name or settings, naming the field, before any call', async () => {
    await expect(store.ensureConsumerGroup('has space', settings())).rejects.toMatchObject({ option: 'consumerGroup.name' });
    await expect(store.ensureConsumerGroup(groupName(), settings({ eventTypes: [] }))).rejects.toMatchObject({ option: 'consumerGroup.eventTypes' });
    await expect(store.ensureConsumerGroup(groupName(), settings({ messageTimeoutMs: 10 }))).rejects.toMatchObject({ option: 'consumerGroup.messageTimeoutMs' });
    await expect(store.ensureConsumerGroup(groupName(), settings({ maxRetryCount: -1 }))).rejects.toMatchObject({ option: 'consumerGroup.maxRetryCount' });
    expect(() => store.joinConsumerGroup('', { bufferSize: 1 })).toThrow(InvalidOptionError);
  });

  it('offers only the listed types appended after the group was created, each to one of two members', async () => {
    const before = await append('cg', 'Offered');
    await append('cg', 'NotOffered'); // the group starts at the last record (included): here one it does not offer
    const name = groupName();
    await store.ensureConsumerGroup(name, settings());
    const members = [consume(store.joinConsumerGroup(name, { bufferSize: 4 })), consume(store.joinConsumerGroup(name, { bufferSize: 4 }))];
    const offered = [...(await append('cg', 'Offered', 10)), ...(await append('cg', 'AlsoOffered', 4))];
    await append('cg', 'NotOffered', 5);
    await append('cg', 'OfferedNot', 2);
    const all = () => members.flatMap((member) => member.received.map((offer) => offer.event.id));
    await waitFor(() => all().length >= offered.length, 'every offered event');
    expect(all().sort()).toEqual([...offered].sort());
    expect(all()).not.toContain(before[0]);
    expect(members.every((member) => member.received.length > 0)).toBe(true);
    expect(members.flatMap((member) => member.received).every((offer) => offer.retryCount === 0)).toBe(true);
  });

  it('nack retry offers the event again with its retry count; past maxRetryCount it is parked', async () => {
    const name = groupName();
    await store.ensureConsumerGroup(name, settings({ maxRetryCount: 2 }));
    const member = consume(store.joinConsumerGroup(name, { bufferSize: 1 }), (offer) => offer.nack('retry', 'not now'));
    const [id] = await append('cg', 'Offered');
    await waitFor(() => member.received.length >= 3, 'three offers');
    expect(member.received.map((offer) => [offer.event.id, offer.retryCount])).toEqual([
      [id, 0],
      [id, 1],
      [id, 2],
    ]);
    const client = EventStoreDBClient.connectionString(server.connectionString);
    try {
      let parked = 0n;
      await waitFor(() => parked === 1n, 'the event parked', async () => {
        parked = (await client.getPersistentSubscriptionToAllInfo(name)).stats.parkedMessageCount;
      });
    } finally {
      await client.dispose();
    }
  });

  it('a member that leaves without acknowledging hands its events to the other member', async () => {
    const name = groupName();
    await store.ensureConsumerGroup(name, settings());
    const leaving = store.joinConsumerGroup(name, { bufferSize: 10 });
    const first = consume(leaving, () => new Promise<void>(() => undefined)); // never settles
    const [id] = await append('cg', 'Offered');
    await waitFor(() => first.received.length === 1, 'the first offer');
    await leaving.close();
    const second = consume(store.joinConsumerGroup(name, { bufferSize: 10 }));
    await waitFor(() => second.received.length === 1, 'the event offered again');
    expect(second.received[0]?.event.id).toBe(id);
  });

  it('closing the store ends its memberships; a closed store refuses to join', async () => {
    const own = EventStoreDbEventStore.connect({ connectionString: server.connectionString });
    const name = groupName();
    await own.ensureConsumerGroup(name, settings());
    const member = consume(own.joinConsumerGroup(name, { bufferSize: 1 }));
    await append('cg', 'Offered');
    await waitFor(() => member.received.length === 1, 'one offer');
    await own.close();
    await member.done;
    expect(member.errors).toEqual([]);
    expect(() => own.joinConsumerGroup(name, { bufferSize: 1 })).toThrow(StoreClosedError);
    await expect(own.ensureConsumerGroup(name, settings())).rejects.toBeInstanceOf(StoreClosedError);
  });
});
