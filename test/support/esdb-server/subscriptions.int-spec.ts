import { END, eventTypeFilter, EventStoreDBClient, jsonEvent, START, streamNameFilter } from '@eventstore/db-client';
import type { Position } from '@eventstore/db-client';

import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { disposeAll, record, uniqueStream, waitFor } from './int-spec-helpers';

const events = (count: number, type = 'Tick'): ReturnType<typeof jsonEvent>[] =>
  Array.from({ length: count }, (_, n) => jsonEvent({ type, data: { n } }));

describe('EventStoreDB test server: catch-up subscriptions', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    server = await startEsdbTestServer();
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  describe('to a stream', () => {
    it('confirms, replays history from the start, reports caughtUp, then pushes live events with no gap', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(3));
      const subscription = client.subscribeToStream(stream, { fromRevision: START });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'), 5_000, 'caughtUp');
      await client.appendToStream(stream, events(2, 'Live'));
      await waitFor(() => seen.events.length === 5, 5_000, '5 events');
      await subscription.unsubscribe();
      expect(seen.log).toEqual(['confirmation', 'event:Tick', 'event:Tick', 'event:Tick', 'caughtUp', 'event:Live', 'event:Live']);
      expect(seen.events.map((e) => e.event?.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
      expect(seen.errors).toEqual([]);
    });

    it('treats fromRevision as exclusive', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(4));
      const subscription = client.subscribeToStream(stream, { fromRevision: 2n });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await subscription.unsubscribe();
      expect(seen.events.map((e) => e.event?.revision)).toEqual([3n]);
    });

    it('from END delivers only events written after subscribing', async () => {
      const stream = uniqueStream();
      await client.appendToStream(stream, events(3));
      const subscription = client.subscribeToStream(stream, { fromRevision: END });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await client.appendToStream(stream, events(1, 'After'));
      await waitFor(() => seen.events.length === 1);
      await subscription.unsubscribe();
      expect(seen.events.map((e) => `${e.event?.type}@${e.event?.revision}`)).toEqual(['After@3']);
    });

    it('waits on a stream that does not exist yet and delivers its first events', async () => {
      const stream = uniqueStream('later');
      const subscription = client.subscribeToStream(stream);
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await client.appendToStream(stream, events(2));
      await waitFor(() => seen.events.length === 2);
      await subscription.unsubscribe();
      expect(seen.errors).toEqual([]);
    });

    it('does not leak events of other streams', async () => {
      const stream = uniqueStream('mine');
      const subscription = client.subscribeToStream(stream);
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await client.appendToStream(uniqueStream('other'), events(3));
      await client.appendToStream(stream, events(1, 'Mine'));
      await waitFor(() => seen.events.length >= 1);
      await subscription.unsubscribe();
      expect(seen.events.map((e) => e.event?.streamId)).toEqual([stream]);
    });
  });

  describe('to $all', () => {
    it('treats fromPosition as exclusive and continues live in $all order', async () => {
      const stream = uniqueStream('allpos');
      const first = await client.appendToStream(stream, events(1, 'First'));
      await client.appendToStream(stream, events(1, 'Second'));
      const subscription = client.subscribeToAll({ fromPosition: first.position ?? START });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await client.appendToStream(stream, events(1, 'Third'));
      await waitFor(() => seen.events.some((e) => e.event?.type === 'Third'));
      await subscription.unsubscribe();
      expect(seen.events.map((e) => e.event?.type)).toEqual(['Second', 'Third']);
    });

    it('from END skips history', async () => {
      await client.appendToStream(uniqueStream('history'), events(2, 'Old'));
      const subscription = client.subscribeToAll({ fromPosition: END });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await client.appendToStream(uniqueStream('fresh'), events(1, 'New'));
      await waitFor(() => seen.events.length === 1);
      await subscription.unsubscribe();
      expect(seen.events.map((e) => e.event?.type)).toEqual(['New']);
    });

    it('filters server-side on stream name prefix and on event type regex', async () => {
      const wanted = `${uniqueStream('wanted')}`;
      await client.appendToStream(wanted, events(2, 'Kept'));
      await client.appendToStream(uniqueStream('unwanted'), events(2, 'Kept'));
      await client.appendToStream(wanted, events(1, 'Finish'));
      const byName = client.subscribeToAll({ fromPosition: START, filter: streamNameFilter({ prefixes: [wanted] }) });
      const byNameSeen = record(byName);
      const byType = client.subscribeToAll({ fromPosition: START, filter: eventTypeFilter({ regex: '^Fin' }) });
      const byTypeSeen = record(byType);
      await waitFor(() => byNameSeen.log.includes('caughtUp') && byTypeSeen.log.includes('caughtUp'));
      await Promise.all([byName.unsubscribe(), byType.unsubscribe()]);
      expect(byNameSeen.events.map((e) => `${e.event?.streamId}:${e.event?.type}`)).toEqual([
        `${wanted}:Kept`,
        `${wanted}:Kept`,
        `${wanted}:Finish`,
      ]);
      expect(byTypeSeen.events.map((e) => e.event?.type)).toEqual(['Finish']);
    });

    it('sends checkpoints every maxSearchWindow × checkpointInterval events considered, even when none match', async () => {
      const base = await client.appendToStream(uniqueStream('cp-base'), events(1));
      const noise = uniqueStream('noise');
      for (let i = 0; i < 5; i += 1) await client.appendToStream(noise, events(10, 'Noise'));
      const checkpoints: Position[] = [];
      const subscription = client.subscribeToAll({
        fromPosition: base.position ?? START,
        filter: eventTypeFilter({
          prefixes: ['NeverWritten'],
          maxSearchWindow: 5,
          checkpointInterval: 2,
          checkpointReached: (_subscription, position) => {
            checkpoints.push(position);
          },
        }),
      });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      await subscription.unsubscribe();
      expect(seen.events).toEqual([]);
      // 50 events considered, a checkpoint every 10: 5 checkpoints, the last one at the end of
      // the catch-up (deduplicated with the one issued when going live).
      expect(checkpoints).toHaveLength(5);
      const commits = checkpoints.map((c) => c.commit);
      expect(commits.every((c, i) => i === 0 || c > (commits[i - 1] ?? 0n))).toBe(true);
      expect(checkpoints.every((c) => c.commit === c.prepare)).toBe(true);
    });

    it('resumes from a checkpoint exclusively: the next matching event, nothing before, nothing twice', async () => {
      const category = uniqueStream('resume');
      await client.appendToStream(`${category}-a`, events(3, 'Before'));
      const checkpoints: Position[] = [];
      const first = client.subscribeToAll({
        fromPosition: START,
        filter: streamNameFilter({
          prefixes: [category],
          maxSearchWindow: 1,
          checkpointInterval: 1,
          checkpointReached: (_subscription, position) => {
            checkpoints.push(position);
          },
        }),
      });
      const firstSeen = record(first);
      await waitFor(() => firstSeen.log.includes('caughtUp'));
      await first.unsubscribe();
      const last = checkpoints[checkpoints.length - 1];
      expect(last).toBeDefined();
      await client.appendToStream(`${category}-b`, events(1, 'After'));
      const second = client.subscribeToAll({ fromPosition: last ?? START, filter: streamNameFilter({ prefixes: [category] }) });
      const secondSeen = record(second);
      await waitFor(() => secondSeen.log.includes('caughtUp'));
      await second.unsubscribe();
      expect(firstSeen.events.map((e) => e.event?.type)).toEqual(['Before', 'Before', 'Before']);
      expect(secondSeen.events.map((e) => e.event?.type)).toEqual(['After']);
    });
  });
});
