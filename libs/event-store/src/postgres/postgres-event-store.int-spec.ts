import type { PostgresTestServer } from '../../../../test/support/postgres';
import { startPostgresTestServer } from '../../../../test/support/postgres';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { PostgresEventStore } from './postgres-event-store';

// One private cluster for the file (initdb in a temporary folder, a free loopback port): the
// suite gives every test its own categories and reads `$all` after the head it found.
let server: PostgresTestServer;

beforeAll(async () => {
  server = await startPostgresTestServer();
}, 120_000);

afterAll(async () => {
  await server.stop();
});

const open = (): Promise<PostgresEventStore> => PostgresEventStore.open({ connectionString: server.connectionString, schema: 'contract' });

describeEventStoreContract('PostgresEventStore (private PostgreSQL 15 cluster)', {
  create: open,
  // A process restart: a new pool on the same database.
  reopen: async (store) => {
    await store.close();
    return open();
  },
});
