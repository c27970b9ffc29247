/**
 * The protocol-level EventStoreDB test server as a process of its own, for the tests and the
 * bench that run the service in several processes on it:
 *
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register test/support/esdb-server/standalone.ts [--port N] [--host H]
 *
 * Once listening it prints one line, `esdb-test-server ready <json>` with `pid`, `host`, `port`,
 * `connectionString` and `statsUrl`; `GET <statsUrl>` (loopback HTTP) answers the
 * {@link StandaloneStats} as JSON. SIGTERM or SIGINT stops it (open calls end with UNAVAILABLE),
 * prints `esdb-test-server stopped <json stats>` and exits 0. See docs/esdb-test-server.md.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StandaloneStats } from './standalone-protocol';
import { READY_LINE_PREFIX, STOPPED_LINE_PREFIX, parseStandaloneArguments } from './standalone-protocol';
import { startEsdbTestServer } from './esdb-test-server';
import { EsdbTestServerError } from './esdb-test-server-error';

async function main(): Promise<void> {
  const options = parseStandaloneArguments(process.argv.slice(2));
  const server = await startEsdbTestServer({ host: options.host, port: options.port });
  const stats = (): StandaloneStats => ({ appendConflicts: server.appendConflicts() });
  const http = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/stats') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats()));
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('GET /stats is the only route');
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, options.host, resolve);
  });
  const statsPort = (http.address() as AddressInfo).port;
  const ready = { pid: process.pid, host: server.host, port: server.port, connectionString: server.connectionString, statsUrl: `http://${options.host}:${statsPort}/stats` };
  process.stdout.write(`${READY_LINE_PREFIX}${JSON.stringify(ready)}\n`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await server.stop();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      process.stdout.write(`${STOPPED_LINE_PREFIX}${JSON.stringify(stats())}\n`, () => process.exit(0));
    })().catch((error: unknown) => {
      process.stderr.write(`esdb-test-server: stopping failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  // A bad argument or a port in use: its message says it all; anything else with its stack.
  const text = error instanceof EsdbTestServerError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`esdb-test-server: ${text}\n`);
  process.exit(2);
});
