import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadinessReport } from '@agent-ledger/client';
import { PostgresEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import { runCliProcess } from './support/cli-process';
import { eventually, listeningPort, request, settledRun } from './support/http-service';
import type { ServiceProcess } from './support/service-process';
import { GREETER_AGENTS_YAML, startServiceProcess } from './support/service-process';
import type { PostgresTestServer } from '../support/postgres';
import { startPostgresTestServer } from '../support/postgres';
import { scaled } from '../support/time-scale';

/**
 * The service as a user starts it, on a private PostgreSQL cluster
 * (POSTGRES_CONNECTION_STRING): a run completes over HTTP and is still served
 * after a restart; the data folder's files (read models, processors'
 * database) stay embedded beside the process, and are refused on another
 * PostgreSQL store as on the other stores.
 */
describe('the service on PostgreSQL (e2e)', () => {
  let pg: PostgresTestServer;
  /** The cluster's connection string with a password in it: trust authentication ignores it; the service must never print it. */
  let connectionString: string;
  let dir: string;
  let dataDir: string;
  const children: ChildProcess[] = [];

  const start = (env: Record<string, string>): ServiceProcess => {
    const service = startServiceProcess({ AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: join(dir, 'agents.yaml'), WORKER_CONCURRENCY: '1', POSTGRES_CONNECTION_STRING: connectionString, ...env });
    children.push(service.child);
    return service;
  };
  const listening = async (service: ServiceProcess): Promise<string> => `http://127.0.0.1:${await listeningPort(service.child, service.output, service.exited, 'The service')}`;
  const stop = async (service: ServiceProcess): Promise<void> => {
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  };
  const readyAtLagZero = (base: string): Promise<ReadinessReport> =>
    eventually(
      async () => {
        const ready = await request<ReadinessReport>(base, 'GET', '/ready');
        return ready.status === 200 && ready.body.status === 'ok' && ready.body.projections.length > 0 && ready.body.projections.every((p) => p.lag?.events === 0) ? ready.body : undefined;
      },
      '/ready ok with every projection at lag 0',
      30_000,
    );
  const listedRuns = async (base: string): Promise<string[]> => (await request<{ runs: Array<{ runId: string }> }>(base, 'GET', '/runs')).body.runs.map((r) => r.runId).sort();

  beforeAll(async () => {
    pg = await startPostgresTestServer();
    connectionString = pg.connectionString.replace('agent_ledger_test@', 'agent_ledger_test:not-to-be-shown@');
  }, scaled(60_000));

  afterAll(async () => {
    await pg?.stop();
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-pg-e2e-'));
    dataDir = join(dir, 'data');
    writeFileSync(join(dir, 'agents.yaml'), GREETER_AGENTS_YAML);
  });

  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'runs a run to completion over HTTP, its events in the configured schema, and still serves it after a restart',
    async () => {
      const first = start({ POSTGRES_SCHEMA: 'e2e_runs', POSTGRES_POOL_SIZE: '4' });
      const base = await listening(first);
      expect(first.output()).toContain('PostgreSQL schema e2e_runs');
      const created = await request<{ runId: string }>(base, 'POST', '/runs', { agent: 'greeter', input: 'hi' });
      expect(created.status).toBe(202);
      const runId = created.body.runId;
      expect((await settledRun(base, runId, scaled(30_000))).status).toBe('COMPLETED');
      await readyAtLagZero(base);
      await stop(first);

      // The run's events are in PostgreSQL, in the schema named (not in an embedded file).
      const store = await PostgresEventStore.open({ connectionString: pg.connectionString, schema: 'e2e_runs' });
      try {
        const types = (await store.readStream(`run-${runId}`)).events.map((event) => event.type);
        expect(types).toContain('RunCompleted');
      } finally {
        await store.close();
      }

      const second = start({ POSTGRES_SCHEMA: 'e2e_runs' });
      const again = await listening(second);
      expect(await listedRuns(again)).toEqual([runId]);
      const run = await request<{ status: string }>(again, 'GET', `/runs/${runId}`);
      expect({ status: run.status, runStatus: run.body.status }).toEqual({ status: 200, runStatus: 'COMPLETED' });
      await readyAtLagZero(again);
      await stop(second);
      expect(`${first.output()}${second.output()}`).not.toContain('not-to-be-shown');
    },
    scaled(180_000),
  );

  it(
    'refuses, with exit 3, read models made from another PostgreSQL store (another schema), naming the store without its password and the fix',
    async () => {
      const onA = start({ POSTGRES_SCHEMA: 'e2e_store_a' });
      const baseA = await listening(onA);
      const created = await request<{ runId: string }>(baseA, 'POST', '/runs', { agent: 'greeter', input: 'hi' });
      expect((await settledRun(baseA, created.body.runId, scaled(30_000))).status).toBe('COMPLETED');
      await readyAtLagZero(baseA);
      await stop(onA);

      const refused = start({ POSTGRES_SCHEMA: 'e2e_store_b' });
      expect(await refused.exited).toBe(3);
      const said = refused.output();
      const storeB = `the run store PostgreSQL at ${pg.connectionString} schema e2e_store_b (POSTGRES_CONNECTION_STRING)`;
      expect(said).toContain('agent-ledger: refusing to start: files in the data folder were made from another event store than the configured one.');
      expect(said).toContain(`the read models ${join(dataDir, 'read-models.sqlite')} were made from another event store than ${storeB}`);
      expect(said).toContain('set POSTGRES_CONNECTION_STRING (and POSTGRES_SCHEMA) back to the store these files were made from');
      expect(said).not.toContain('not-to-be-shown');
      expect(said).not.toContain('listening on');

      // Store A again: it starts, with A's run.
      const backOnA = start({ POSTGRES_SCHEMA: 'e2e_store_a' });
      expect(await listedRuns(await listening(backOnA))).toEqual([created.body.runId]);
      await stop(backOnA);
    },
    scaled(180_000),
  );

  it('refuses POSTGRES_CONNECTION_STRING with EVENT_STORE_PATH, exit 3, naming the setting, before anything is written', async () => {
    const refused = start({ EVENT_STORE_PATH: join(dir, 'store.sqlite') });
    expect(await refused.exited).toBe(3);
    expect(refused.output()).toMatch(/EVENT_STORE_PATH.*must not be set with POSTGRES_CONNECTION_STRING/);
    expect(refused.output()).not.toContain('not-to-be-shown');
    expect(existsSync(join(dir, 'store.sqlite'))).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  }, scaled(60_000));

  it(
    "the store verbs in the service's folder: without --config they read ./data and warn naming the file; with it, PostgreSQL, named without its password, and the run",
    async () => {
      // An old embedded store in ./data (what `init` and the defaults use), and beside it the service's configuration on PostgreSQL.
      const old = SqliteEventStore.open({ path: join(dataDir, 'agent-ledger.sqlite') });
      const oldId = (await old.storeIdentity()).id;
      await old.close();
      const configFile = join(dir, 'agent-ledger-pg.yaml');
      writeFileSync(configFile, `store:\n  dataDir: ./pg-data\n  postgresConnectionString: "${connectionString}"\n  postgresSchema: e2e_cli\nagents:\n  configFile: ./agents.yaml\n`);
      const service = startServiceProcess({ AGENT_LEDGER_CONFIG: configFile, WORKER_CONCURRENCY: '1' });
      children.push(service.child);
      const base = await listening(service);
      const created = await request<{ runId: string }>(base, 'POST', '/runs', { agent: 'greeter', input: 'hi' });
      expect((await settledRun(base, created.body.runId, scaled(30_000))).status).toBe('COMPLETED');
      await stop(service);

      const unread = await runCliProcess(['audit', 'review'], {}, dir);
      expect(unread.code).toBe(0);
      expect(unread.stdout.split('\n')[0]).toBe(`Stores read: embedded SQLite ${join(dataDir, 'agent-ledger.sqlite')} (store ${oldId}); settings from the environment and the defaults, no configuration file`);
      expect(unread.stderr).toContain(`${configFile} was not read (no --config, AGENT_LEDGER_CONFIG unset)`);
      expect(unread.stderr).toContain(`agent-ledger audit review --config ${configFile}`);

      const given = await runCliProcess(['audit', 'review', '--json', '--config', 'agent-ledger-pg.yaml'], {}, dir);
      expect(given.code).toBe(0);
      const report = JSON.parse(given.stdout) as { stores: { runStore: { kind: string; location: string; storeId: string }; configFile: string }; chains: { runs: number } };
      expect(report.stores).toMatchObject({ runStore: { kind: 'postgres', location: `${pg.connectionString} schema e2e_cli` }, configFile });
      expect(report.stores.runStore.storeId).not.toBe(oldId);
      expect(report.chains.runs).toBe(1);
      const verified = await runCliProcess(['audit', 'verify', '--config', configFile], {}, dir);
      expect(verified.code).toBe(0);
      expect(verified.stdout.split('\n')[0]).toBe(`Stores read: PostgreSQL ${pg.connectionString} schema e2e_cli (store ${report.stores.runStore.storeId}); settings from the configuration file ${configFile} and the environment`);
      expect(verified.stderr).toBe('');
      for (const output of [given.stdout, given.stderr, verified.stdout, verified.stderr, unread.stderr]) expect(output).not.toContain('not-to-be-shown');
    },
    scaled(120_000),
  );
});
