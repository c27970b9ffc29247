import {
  binaryEvent,
  DISPATCH_TO_SINGLE,
  END,
  EventStoreDBClient,
  jsonEvent,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionDroppedError,
  PersistentSubscriptionExistsError,
  PersistentSubscriptionFailedError,
  PersistentSubscriptionMaximumSubscribersReachedError,
  PINNED,
  START,
  persistentSubscriptionToAllSettingsFromDefaults,
  persistentSubscriptionToStreamSettingsFromDefaults,
  streamNameFilter,
  UnavailableError,
} from '@eventstore/db-client';
import type {
  PersistentSubscriptionBase,
  PersistentSubscriptionToAllResolvedEvent,
  PersistentSubscriptionToStreamResolvedEvent,
} from '@eventstore/db-client';

import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { collect, disposeAll, eventually, uniqueStream, waitFor } from './int-spec-helpers';

const ticks = (count: number, type = 'Tick'): ReturnType<typeof jsonEvent>[] =>
  Array.from({ length: count }, (_, n) => jsonEvent({ type, data: { n } }));

type Delivery = PersistentSubscriptionToStreamResolvedEvent | PersistentSubscriptionToAllResolvedEvent;

/** What one member of a group received, with its errors (so none goes unhandled). */
interface Member<E extends Delivery = PersistentSubscriptionToStreamResolvedEvent> {
  readonly subscription: PersistentSubscriptionBase<E>;
  readonly received: E[];
  readonly errors: Error[];
  confirmed: boolean;
}

/** Joins `subscription` and records everything; acks each delivery itself when `autoAck`. */
function join<E extends Delivery>(subscription: PersistentSubscriptionBase<E>, autoAck = true): Member<E> {
  const member: Member<E> = { subscription, received: [], errors: [], confirmed: false };
  subscription
    .on('data', (event: E) => {
      member.received.push(event);
      if (autoAck) subscription.ack(event).catch((error: Error) => member.errors.push(error));
    })
    .on('confirmation', () => {
      member.confirmed = true;
    })
    .on('error', (error: Error) => member.errors.push(error));
  return member;
}

const numbers = (member: Member<Delivery>): number[] => member.received.map((event) => (event.event?.data as { n: number }).n);

describe('EventStoreDB test server: persistent subscriptions', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    server = await startEsdbTestServer({ persistentSubscriptionTickMs: 50 });
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  const fromStart = (changes: Parameters<typeof persistentSubscriptionToStreamSettingsFromDefaults>[0] = {}) =>
    persistentSubscriptionToStreamSettingsFromDefaults({ startFrom: START, ...changes });

  it('hands each event to exactly one member of the group, round robin', async () => {
    const stream = uniqueStream('rr');
    await client.appendToStream(stream, ticks(30));
    await client.createPersistentSubscriptionToStream(stream, 'workers', fromStart());
    const members = [1, 2, 3].map(() => join(client.subscribeToPersistentSubscriptionToStream(stream, 'workers', { bufferSize: 2 })));
    await waitFor(() => members.reduce((sum, member) => sum + member.received.length, 0) === 30, 5_000, '30 deliveries');
    await client.appendToStream(stream, ticks(6, 'Live'));
    await waitFor(() => members.reduce((sum, member) => sum + member.received.length, 0) === 36, 5_000, '36 deliveries');
    const all = members.flatMap(numbers);
    expect(all).toHaveLength(36);
    expect(new Set(members.flatMap((member) => member.received.map((event) => event.event?.revision)))).toEqual(
      new Set(Array.from({ length: 36 }, (_, revision) => BigInt(revision))),
    );
    for (const member of members) {
      expect(member.received.length).toBeGreaterThan(0);
      expect(member.errors).toEqual([]);
      expect(member.received.every((event) => event.retryCount === 0)).toBe(true);
    }
    await Promise.all(members.map((member) => member.subscription.unsubscribe()));
  });

  it('starts at END by default: only events written after the group was created', async () => {
    const stream = uniqueStream('end');
    await client.appendToStream(stream, ticks(3, 'Before'));
    await client.createPersistentSubscriptionToStream(stream, 'g', persistentSubscriptionToStreamSettingsFromDefaults());
    const member = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => member.confirmed, 5_000, 'confirmation');
    await client.appendToStream(stream, ticks(2, 'After'));
    await waitFor(() => member.received.length === 2, 5_000, '2 events');
    expect(member.received.map((event) => `${event.event?.type}@${event.event?.revision}`)).toEqual(['After@3', 'After@4']);
    await member.subscription.unsubscribe();
  });

  it('pinned: every event of one stream goes to the same member ($all with a filter)', async () => {
    const prefix = uniqueStream('pin');
    const streams = Array.from({ length: 6 }, (_, n) => `${prefix}-s${n}`);
    await client.createPersistentSubscriptionToAll(
      'pinned',
      persistentSubscriptionToAllSettingsFromDefaults({ startFrom: START, consumerStrategyName: PINNED }),
      { filter: streamNameFilter({ prefixes: [prefix] }) },
    );
    const members = [1, 2].map(() => join(client.subscribeToPersistentSubscriptionToAll('pinned', { bufferSize: 50 })));
    await waitFor(() => members.every((member) => member.confirmed), 5_000, 'confirmations');
    for (let round = 0; round < 4; round += 1) for (const stream of streams) await client.appendToStream(stream, ticks(1));
    await waitFor(() => members.reduce((sum, member) => sum + member.received.length, 0) === 24, 5_000, '24 deliveries');
    const owners = new Map<string, Set<number>>();
    members.forEach((member, index) => {
      for (const event of member.received) {
        const stream = event.event?.streamId ?? '?';
        expect(stream.startsWith(prefix)).toBe(true);
        owners.set(stream, (owners.get(stream) ?? new Set()).add(index));
      }
    });
    expect([...owners.values()].every((set) => set.size === 1)).toBe(true);
    expect(owners.size).toBe(6);
    await Promise.all(members.map((member) => member.subscription.unsubscribe()));
  });

  it('nack retry delivers again with retryCount + 1; past maxRetryCount the event is parked; replayParked sends it again', async () => {
    const stream = uniqueStream('nack');
    await client.appendToStream(stream, ticks(1));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ maxRetryCount: 2 }));
    const subscription = client.subscribeToPersistentSubscriptionToStream(stream, 'g');
    const member = join(subscription, false);
    subscription.on('data', (event: PersistentSubscriptionToStreamResolvedEvent) => {
      const action = event.link !== undefined ? subscription.ack(event) : subscription.nack('retry', 'failed', event);
      action.catch((error: Error) => member.errors.push(error));
    });
    await waitFor(() => member.received.length === 3, 5_000, '3 deliveries');
    expect(member.received.map((event) => event.retryCount)).toEqual([0, 1, 2]);
    const parkedStream = `$persistentsubscription-${stream}::g-parked`;
    await eventually(async () => {
      const info = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
      expect(info.stats.parkedMessageCount).toBe(1n);
    });
    const parked = await collect(client.readStream(parkedStream));
    expect(parked.map((event) => event.event?.type)).toEqual(['$>']);
    expect(Buffer.from(parked[0]?.event?.data as Uint8Array).toString('utf8')).toBe(`0@${stream}`);

    await client.replayParkedMessagesToStream(stream, 'g');
    await waitFor(() => member.received.length === 4, 5_000, 'the replayed event');
    const replayed = member.received[3];
    expect(replayed?.event?.id).toBe(member.received[0]?.event?.id);
    expect(replayed?.link?.streamId).toBe(parkedStream);
    expect(replayed?.retryCount).toBe(0);
    const after = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
    expect(after.stats.parkedMessageCount).toBe(0n);
    expect(member.errors).toEqual([]);
    await subscription.unsubscribe();
  });

  it('nack park parks at once; skip drops the event', async () => {
    const stream = uniqueStream('park');
    await client.appendToStream(stream, ticks(2));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart());
    const subscription = client.subscribeToPersistentSubscriptionToStream(stream, 'g');
    const member = join(subscription, false);
    subscription.on('data', (event: PersistentSubscriptionToStreamResolvedEvent) => {
      const action = event.event?.revision === 0n ? 'park' : 'skip';
      subscription.nack(action, 'no', event).catch((error: Error) => member.errors.push(error));
    });
    await waitFor(() => member.received.length === 2, 5_000, '2 deliveries');
    await eventually(async () => {
      const info = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
      expect(info.stats.totalInFlightMessages).toBe(0);
    });
    const parked = await collect(client.readStream(`$persistentsubscription-${stream}::g-parked`));
    expect(parked.map((event) => Buffer.from(event.event?.data as Uint8Array).toString('utf8'))).toEqual([`0@${stream}`]);
    expect(member.received).toHaveLength(2);
    await subscription.unsubscribe();
  });

  it('a message not acked within messageTimeout is delivered again with its retry count', async () => {
    const stream = uniqueStream('timeout');
    await client.appendToStream(stream, ticks(1));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ messageTimeout: 200 }));
    const subscription = client.subscribeToPersistentSubscriptionToStream(stream, 'g');
    const member = join(subscription, false);
    subscription.on('data', (event: PersistentSubscriptionToStreamResolvedEvent) => {
      if (event.retryCount >= 1) subscription.ack(event).catch((error: Error) => member.errors.push(error));
    });
    await waitFor(() => member.received.length >= 2, 5_000, 'the retry');
    expect(member.received.slice(0, 2).map((event) => event.retryCount)).toEqual([0, 1]);
    expect(member.received[1]?.event?.id).toBe(member.received[0]?.event?.id);
    await subscription.unsubscribe();
  });

  it("a member that leaves: its unacked events go to the next member, acked ones don't", async () => {
    const stream = uniqueStream('leave');
    await client.appendToStream(stream, ticks(4));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart());
    const first = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'), false);
    await waitFor(() => first.received.length === 4, 5_000, '4 deliveries');
    await first.subscription.ack(first.received[0] as PersistentSubscriptionToStreamResolvedEvent);
    await first.subscription.ack(first.received[1] as PersistentSubscriptionToStreamResolvedEvent);
    await eventually(async () => {
      const info = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
      expect(info.stats.totalInFlightMessages).toBe(2);
    });
    await first.subscription.unsubscribe();
    const second = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => second.received.length === 2, 5_000, 'the 2 unacked events');
    expect(numbers(second)).toEqual([2, 3]);
    expect(second.received.map((event) => event.retryCount)).toEqual([1, 1]);
    await second.subscription.unsubscribe();
  });

  it('resumes from its server-side checkpoint after a server restart and after RestartSubsystem', async () => {
    const stream = uniqueStream('checkpoint');
    await client.appendToStream(stream, ticks(10));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ checkPointLowerBound: 1, checkPointUpperBound: 1 }));
    const first = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g', { bufferSize: 5 }));
    await waitFor(() => first.received.length === 10, 5_000, '10 deliveries');
    const checkpointStream = `$persistentsubscription-${stream}::g-checkpoint`;
    await eventually(async () => {
      const info = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
      expect(info.stats.lastCheckpointedEventRevision).toBe(9n);
    });
    const checkpoints = await collect(client.readStream(checkpointStream, { direction: 'backwards', fromRevision: END, maxCount: 1 }));
    expect(checkpoints[0]?.event?.type).toBe('$SubscriptionCheckpoint');
    expect(checkpoints[0]?.event?.data).toBe('9');

    await client.appendToStream(stream, ticks(2, 'Later'));
    await waitFor(() => first.received.length === 12, 5_000, '12 deliveries');
    await server.restart();
    await waitFor(() => first.errors.length === 1, 5_000, 'the UNAVAILABLE of the stop');
    expect(first.errors[0]).toBeInstanceOf(UnavailableError);
    const second = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await client.appendToStream(stream, ticks(1, 'AfterRestart'));
    await waitFor(() => second.received.length === 1, 5_000, 'the event after the restart');
    expect(second.received.map((event) => event.event?.type)).toEqual(['AfterRestart']);

    await client.restartPersistentSubscriptionSubsystem();
    await waitFor(() => second.errors.length === 1, 5_000, 'the drop');
    expect(second.errors[0]).toBeInstanceOf(PersistentSubscriptionDroppedError);
    const third = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await client.appendToStream(stream, ticks(1, 'AfterSubsystemRestart'));
    await waitFor(() => third.received.length === 1, 5_000, 'the event after the subsystem restart');
    expect(third.received.map((event) => event.event?.type)).toEqual(['AfterSubsystemRestart']);
    await third.subscription.unsubscribe();
  });

  it('without a checkpoint a restarted group starts over from its start point (at-least-once)', async () => {
    const stream = uniqueStream('nocheckpoint');
    await client.appendToStream(stream, ticks(3));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ checkPointLowerBound: 100, checkPointUpperBound: 100 }));
    const first = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => first.received.length === 3, 5_000, '3 deliveries');
    await client.restartPersistentSubscriptionSubsystem();
    await waitFor(() => first.errors.length === 1, 5_000, 'the drop');
    const second = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => second.received.length === 3, 5_000, 'the redelivery');
    expect(numbers(second)).toEqual([0, 1, 2]);
    await second.subscription.unsubscribe();
  });

  it('refuses a member past maxSubscriberCount and a second group of the same name', async () => {
    const stream = uniqueStream('max');
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ maxSubscriberCount: 1 }));
    await expect(client.createPersistentSubscriptionToStream(stream, 'g', fromStart())).rejects.toBeInstanceOf(PersistentSubscriptionExistsError);
    const first = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => first.confirmed, 5_000, 'confirmation');
    const second = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => second.errors.length === 1, 5_000, 'the refusal');
    expect(second.errors[0]).toBeInstanceOf(PersistentSubscriptionMaximumSubscribersReachedError);
    expect(second.errors[0]).toMatchObject({ streamName: stream, groupName: 'g' });
    await first.subscription.unsubscribe();
  });

  it('update drops the members and applies the new settings; info and list report them', async () => {
    const stream = uniqueStream('update');
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart());
    const member = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g', { bufferSize: 7 }));
    await waitFor(() => member.confirmed, 5_000, 'confirmation');
    const before = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
    expect(before).toMatchObject({ eventSource: stream, groupName: 'g', settings: { startFrom: START, consumerStrategyName: 'RoundRobin' } });
    expect(before.connections).toHaveLength(1);
    expect(before.connections[0]).toMatchObject({ availableSlots: 7, inFlightMessages: 0 });

    await client.updatePersistentSubscriptionToStream(stream, 'g', fromStart({ messageTimeout: 1234, maxRetryCount: 3, consumerStrategyName: PINNED }));
    await waitFor(() => member.errors.length === 1, 5_000, 'the drop');
    expect(member.errors[0]).toBeInstanceOf(PersistentSubscriptionDroppedError);
    const after = await client.getPersistentSubscriptionToStreamInfo(stream, 'g');
    expect(after.settings).toMatchObject({ messageTimeout: 1234, maxRetryCount: 3, consumerStrategyName: 'Pinned' });
    expect(after.connections).toEqual([]);

    const listed = await client.listPersistentSubscriptionsToStream(stream);
    expect(listed.map((info) => info.groupName)).toEqual(['g']);
    const everything = await client.listAllPersistentSubscriptions();
    expect(everything.some((info) => info.eventSource === stream && info.groupName === 'g')).toBe(true);
    await expect(client.listPersistentSubscriptionsToStream(uniqueStream('none'))).rejects.toBeInstanceOf(PersistentSubscriptionDoesNotExistError);
    await expect(client.updatePersistentSubscriptionToStream(stream, 'missing', fromStart())).rejects.toBeInstanceOf(
      PersistentSubscriptionDoesNotExistError,
    );
  });

  it('delete ends the members with "does not exist", forgets the checkpoint, and unknown groups are refused', async () => {
    const stream = uniqueStream('delete');
    await client.appendToStream(stream, ticks(2));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ checkPointLowerBound: 1, checkPointUpperBound: 1 }));
    const member = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => member.received.length === 2, 5_000, '2 deliveries');
    await client.deletePersistentSubscriptionToStream(stream, 'g');
    await waitFor(() => member.errors.length === 1, 5_000, 'the end of the member');
    expect(member.errors[0]).toBeInstanceOf(PersistentSubscriptionDoesNotExistError);
    await expect(client.deletePersistentSubscriptionToStream(stream, 'g')).rejects.toBeInstanceOf(PersistentSubscriptionDoesNotExistError);
    await expect(client.getPersistentSubscriptionToStreamInfo(stream, 'g')).rejects.toBeInstanceOf(PersistentSubscriptionDoesNotExistError);

    const orphan = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => orphan.errors.length === 1, 5_000, 'the refusal');
    expect(orphan.errors[0]).toBeInstanceOf(PersistentSubscriptionDoesNotExistError);

    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart());
    const again = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => again.received.length === 2, 5_000, 'a fresh start');
    await again.subscription.unsubscribe();
  });

  it('dispatch to single: every event to the first member while it has room', async () => {
    const stream = uniqueStream('single');
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ consumerStrategyName: DISPATCH_TO_SINGLE }));
    const first = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g', { bufferSize: 20 }));
    await waitFor(() => first.confirmed, 5_000, 'first confirmation');
    const second = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g', { bufferSize: 20 }));
    await waitFor(() => second.confirmed, 5_000, 'second confirmation');
    await client.appendToStream(stream, ticks(10));
    await waitFor(() => first.received.length === 10, 5_000, '10 deliveries');
    expect(second.received).toEqual([]);
    await Promise.all([first, second].map((member) => member.subscription.unsubscribe()));
  });

  it('resolveLinkTos: a link is delivered as its target with the link, and acked by the link id', async () => {
    const target = uniqueStream('target');
    const links = uniqueStream('links');
    await client.appendToStream(target, ticks(2));
    await client.appendToStream(links, [binaryEvent({ type: '$>', data: Buffer.from(`1@${target}`) })]);
    await client.createPersistentSubscriptionToStream(links, 'g', fromStart({ resolveLinkTos: true }));
    const member = join(client.subscribeToPersistentSubscriptionToStream(links, 'g'));
    await waitFor(() => member.received.length === 1, 5_000, 'the link');
    expect(member.received[0]?.event).toMatchObject({ streamId: target, revision: 1n });
    expect(member.received[0]?.link).toMatchObject({ streamId: links, revision: 0n, type: '$>' });
    await eventually(async () => {
      const info = await client.getPersistentSubscriptionToStreamInfo(links, 'g');
      expect(info.stats.totalInFlightMessages).toBe(0);
    });
    await member.subscription.unsubscribe();
  });

  it('keeps one checkpoint event ($maxCount 1 on the checkpoint stream)', async () => {
    const stream = uniqueStream('onecheckpoint');
    await client.appendToStream(stream, ticks(5));
    await client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ checkPointLowerBound: 1, checkPointUpperBound: 1 }));
    const member = join(client.subscribeToPersistentSubscriptionToStream(stream, 'g'));
    await waitFor(() => member.received.length === 5, 5_000, '5 deliveries');
    await eventually(async () => {
      const checkpoints = await collect(client.readStream(`$persistentsubscription-${stream}::g-checkpoint`));
      expect(checkpoints.map((event) => event.event?.data)).toEqual(['4']);
    });
    await member.subscription.unsubscribe();
  });

  it('refuses settings the server refuses (readBatchSize not below historyBufferSize) with PersistentSubscriptionFailedError', async () => {
    const stream = uniqueStream('badsettings');
    await expect(
      client.createPersistentSubscriptionToStream(stream, 'g', fromStart({ readBatchSize: 500, historyBufferSize: 500 })),
    ).rejects.toBeInstanceOf(PersistentSubscriptionFailedError);
    await expect(client.getPersistentSubscriptionToStreamInfo(stream, 'g')).rejects.toBeInstanceOf(PersistentSubscriptionDoesNotExistError);
  });

  it('a $all group resumes after its position checkpoint when the server restarts; members see UnavailableError', async () => {
    const prefix = uniqueStream('allrestart');
    await client.createPersistentSubscriptionToAll(
      'resume',
      persistentSubscriptionToAllSettingsFromDefaults({ startFrom: START, checkPointLowerBound: 1, checkPointUpperBound: 1 }),
      { filter: streamNameFilter({ prefixes: [prefix] }) },
    );
    const first = join(client.subscribeToPersistentSubscriptionToAll('resume'));
    await client.appendToStream(`${prefix}-a`, ticks(3));
    await waitFor(() => first.received.length === 3, 5_000, '3 deliveries');
    await eventually(async () => {
      const info = await client.getPersistentSubscriptionToAllInfo('resume');
      expect(info.stats.lastCheckpointedEventPosition?.commit).toBe(first.received[2]?.event?.position?.commit);
    });
    await server.restart();
    await waitFor(() => first.errors.length === 1, 5_000, 'the end of the member');
    expect(first.errors[0]).toBeInstanceOf(UnavailableError);
    const second = join(client.subscribeToPersistentSubscriptionToAll('resume'));
    await client.appendToStream(`${prefix}-b`, ticks(1, 'AfterRestart'));
    await waitFor(() => second.received.length === 1, 5_000, 'the event after the restart');
    expect(second.received.map((event) => event.event?.type)).toEqual(['AfterRestart']);
    await second.subscription.unsubscribe();
  });

  it('$all groups: filter, info in positions, delete', async () => {
    const prefix = uniqueStream('allgroup');
    await client.appendToStream(`${prefix}-a`, ticks(2));
    await client.appendToStream(uniqueStream('elsewhere'), ticks(2));
    await client.createPersistentSubscriptionToAll('all-g', persistentSubscriptionToAllSettingsFromDefaults({ startFrom: START }), {
      filter: streamNameFilter({ prefixes: [prefix] }),
    });
    const member = join(client.subscribeToPersistentSubscriptionToAll('all-g'));
    await waitFor(() => member.received.length === 2, 5_000, '2 deliveries');
    await client.appendToStream(`${prefix}-b`, ticks(1));
    await waitFor(() => member.received.length === 3, 5_000, '3 deliveries');
    expect(member.received.every((event) => event.event?.streamId.startsWith(prefix) === true)).toBe(true);
    const info = await client.getPersistentSubscriptionToAllInfo('all-g');
    expect(info).toMatchObject({ eventSource: '$all', groupName: 'all-g', settings: { startFrom: START } });
    expect(info.stats.lastKnownEventPosition?.commit).toBe(member.received[2]?.event?.position?.commit);
    const listed = await client.listPersistentSubscriptionsToAll();
    expect(listed.map((group) => group.groupName)).toContain('all-g');
    await client.deletePersistentSubscriptionToAll('all-g');
    await waitFor(() => member.errors.length === 1, 5_000, 'the end of the member');
    expect(member.errors[0]).toMatchObject({ streamName: '$all', groupName: 'all-g' });
  });
});
