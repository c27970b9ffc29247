import { startEsdbTestServer } from '../support/esdb-server';
import { describeHttpApi } from './support/http-api-scenarios';

describeHttpApi('EventStoreDB (protocol-level server)', async () => {
  const server = await startEsdbTestServer();
  return { env: { EVENTSTORE_CONNECTION_STRING: server.connectionString }, cleanup: () => server.stop() };
});
