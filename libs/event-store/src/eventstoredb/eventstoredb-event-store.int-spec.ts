import type { EsdbTestServer } from '../../../../test/support/esdb-server';
import { startEsdbTestServer } from '../../../../test/support/esdb-server';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

// One protocol-level server for the file: the suite gives every test its own
// categories and reads `$all` after the head it found, as on a shared real server.
let server: EsdbTestServer;

beforeAll(async () => {
  server = await startEsdbTestServer();
});

afterAll(async () => {
  await server.stop();
});

const connect = (): EventStoreDbEventStore => EventStoreDbEventStore.connect({ connectionString: server.connectionString });

describeEventStoreContract(
  'EventStoreDbEventStore (protocol-level server)',
  {
    create: connect,
    // A process restart: a new client on the same server and data.
    reopen: async (store) => {
      await store.close();
      return connect();
    },
  },
  // Client 6.2.1 decodes reads at ~0.25 ms per event against the in-process server (the raw
  // client is as slow): the read-decide-append test (~640 full-stream reads) needs more than
  // the default 30 s on 2 cores under --detectOpenHandles.
  { slowTestTimeoutMs: 120_000, multiStreamAppend: false },
);
