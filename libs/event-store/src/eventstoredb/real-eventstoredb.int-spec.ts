import { describeEventStoreContract } from '../testing/event-store-contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

/**
 * The store contract against a real EventStoreDB, when one is configured:
 *
 *   docker compose up -d eventstore
 *   EVENTSTORE_CONNECTION_STRING=esdb://localhost:2113?tls=false npm run test:int
 *
 * The server is shared and may hold other data: the suite uses its own
 * categories and reads `$all` after the head it found.
 */
const connectionString = process.env['EVENTSTORE_CONNECTION_STRING']?.trim();
const HOW_TO_RUN =
  'set EVENTSTORE_CONNECTION_STRING to run it: `docker compose up -d eventstore` then `EVENTSTORE_CONNECTION_STRING=esdb://localhost:2113?tls=false npm run test:int`';

if (connectionString) {
  const connect = (): EventStoreDbEventStore => EventStoreDbEventStore.connect({ connectionString });
  describeEventStoreContract(
    `EventStoreDbEventStore (real EventStoreDB at ${connectionString})`,
    {
      create: connect,
      reopen: async (store) => {
        await store.close();
        return connect();
      },
    },
    { liveDeadlineMs: 10_000, slowTestTimeoutMs: 60_000, multiStreamAppend: false },
  );
} else {
  console.warn(`Skipping the store contract against a real EventStoreDB: ${HOW_TO_RUN}`);
  describe.skip(`EventStoreDbEventStore against a real EventStoreDB (skipped: ${HOW_TO_RUN})`, () => {
    it('runs the store contract', () => undefined);
  });
}
