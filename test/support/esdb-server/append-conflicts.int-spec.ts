import { EventStoreDBClient, jsonEvent, NO_STREAM, WrongExpectedVersionError } from '@eventstore/db-client';

import type { EsdbTestServer, EsdbTestServerProcess } from './index';
import { startEsdbTestServer, startEsdbTestServerProcess } from './index';
import { disposeAll, uniqueStream } from './int-spec-helpers';
import { parseStandaloneArguments } from './standalone-protocol';
import { scaled } from '../time-scale';

const claim = () => jsonEvent({ type: 'RunClaimed', data: { owner: 'w' } });
const other = () => jsonEvent({ type: 'StepStarted', data: {} });
/** Per-call credentials make client 6.2.1 use `Streams.Append` instead of `BatchAppend`. */
const UNARY_APPEND = { credentials: { username: 'admin', password: 'changeit' } };

describe('EventStoreDB test server: refused appends are counted', () => {
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

  it('counts each append refused with a wrong expected revision, per stream and per proposed type, through BatchAppend and Append, across a restart', async () => {
    const stream = uniqueStream('run');
    const quiet = uniqueStream('run');
    await client.appendToStream(stream, other(), { expectedRevision: NO_STREAM });
    await client.appendToStream(quiet, other(), { expectedRevision: NO_STREAM });
    await client.appendToStream(stream, claim(), { expectedRevision: 0n });

    // Two losers of the race for revision 0 (BatchAppend, then Append), one with two event types.
    await expect(client.appendToStream(stream, claim(), { expectedRevision: 0n })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await server.restart();
    await expect(client.appendToStream(stream, [claim(), other()], { expectedRevision: 0n, ...UNARY_APPEND })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    // Not counted: an idempotent retry, a success, a refused delete.
    const again = jsonEvent({ type: 'RunClaimed', data: {} });
    await client.appendToStream(quiet, again, { expectedRevision: 0n });
    await client.appendToStream(quiet, again, { expectedRevision: 0n });
    await expect(client.deleteStream(quiet, { expectedRevision: 7n })).rejects.toBeInstanceOf(WrongExpectedVersionError);

    const stats = server.appendConflicts();
    expect(stats.streams[stream]).toEqual({ refused: 2, byEventType: { RunClaimed: 2, StepStarted: 1 } });
    expect(stats.streams[quiet]).toBeUndefined();
    expect(stats.total).toBe(Object.values(stats.streams).reduce((sum, s) => sum + s.refused, 0));
  });
});

describe('EventStoreDB test server as a process of its own (standalone.ts)', () => {
  let server: EsdbTestServerProcess | undefined;
  let client: EventStoreDBClient | undefined;

  afterAll(async () => {
    await disposeAll(client);
    await server?.stop();
  }, scaled(30_000));

  it('prints its connection string, serves the client, reports refused appends over GET /stats, and stops on SIGTERM with its stats', async () => {
    server = await startEsdbTestServerProcess();
    expect(server.connectionString).toBe(`esdb://127.0.0.1:${server.port}?tls=false`);
    client = EventStoreDBClient.connectionString(server.connectionString);
    const stream = uniqueStream('run');
    await client.appendToStream(stream, claim(), { expectedRevision: NO_STREAM });
    await expect(client.appendToStream(stream, claim(), { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(WrongExpectedVersionError);

    const stats = await server.stats();
    expect(stats.appendConflicts).toEqual({ total: 1, streams: { [stream]: { refused: 1, byEventType: { RunClaimed: 1 } } } });

    await client.dispose();
    client = undefined;
    const final = await server.stop();
    expect(final).toEqual(stats);
    expect(server.child.exitCode).toBe(0);
    server = undefined;
  }, scaled(90_000));

  it('ends with exit code 2 and the message on a bad argument, before it is ready', async () => {
    await expect(startEsdbTestServerProcess({ args: ['--bogus'] })).rejects.toThrow(/ended \(code 2, signal null\) before it was ready:\nesdb-test-server: unknown argument --bogus; known: --port <n>, --host <address>$/);
  }, scaled(60_000));

  it('refuses an unknown argument or a bad port, naming it', () => {
    expect(() => parseStandaloneArguments(['--verbose'])).toThrow(/unknown argument --verbose/);
    expect(() => parseStandaloneArguments(['--port', '70000'])).toThrow(/--port must be an integer/);
    expect(() => parseStandaloneArguments(['--port'])).toThrow(/--port needs a value/);
    expect(parseStandaloneArguments(['--port', '2113', '--host', '0.0.0.0'])).toEqual({ host: '0.0.0.0', port: 2113 });
  });
});
