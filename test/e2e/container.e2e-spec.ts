/**
 * The container's start, without a Docker engine: the Dockerfile's CMD run
 * from the repository root (its WORKDIR) on the built output, with the
 * environment a compose service's container gets (the image's ENV, then the
 * compose file's `environment`, interpolated from `.env.example` filled in as
 * a user fills it), the named volume's folder mapped to a temp folder and the
 * container port to a free one. The image's HEALTHCHECK command, run with
 * node, must pass; the service must stop on SIGTERM with exit 0.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey, hashApiKey } from '@agent-ledger/http';
import { Client } from 'pg';
import type { EsdbTestServer } from '../support/esdb-server';
import { startEsdbTestServer } from '../support/esdb-server';
import type { PostgresTestServer } from '../support/postgres';
import { startPostgresTestServer } from '../support/postgres';
import { containerEnvironment, interpolatedCompose, portMapping, readDockerfile, readEnvExample, REPO_ROOT, volumeMounts } from '../support/container/container-setup';
import { execForm, healthcheckOf, lastOf } from '../support/container/dockerfile';
import { scaled } from '../support/time-scale';

const dockerfile = readDockerfile();
const image = dockerfile.stages[dockerfile.stages.length - 1] ?? [];
const cmd = execForm(lastOf(image, 'CMD')?.args ?? '', 'CMD');
const healthcheck = healthcheckOf(lastOf(image, 'HEALTHCHECK') ?? { name: 'HEALTHCHECK', args: '', line: 0 });
const workdir = lastOf(image, 'WORKDIR')?.args ?? '';

/** The CMD's program is in the build: in CI `.ci/run` has built; elsewhere `tsc -b` brings it up to date (incremental). */
function ensureBuilt(): void {
  const program = join(REPO_ROOT, cmd[1] as string);
  if (process.env.CI !== 'true') execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'pipe' });
  if (!existsSync(program)) throw new Error(`${cmd[1]} is missing: run npm run build (the image's CMD starts the built service)`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs the HEALTHCHECK command (node itself, as the container would) with the container's environment; its exit code. */
function runHealthcheck(env: NodeJS.ProcessEnv): Promise<number | null> {
  const [program, ...args] = healthcheck.command;
  expect(program).toBe('node');
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The container of a compose service, as a local process. */
interface Container {
  readonly env: NodeJS.ProcessEnv;
  readonly port: number;
  readonly dataDir: string;
  readonly key: string;
}

/** The container's environment for `service`, with its volume's folder in a temp folder, its port free, and `rewrite` applied. */
async function containerOf(service: string, rewrite: (env: Map<string, string>) => void = () => undefined): Promise<Container> {
  const key = generateApiKey();
  const dotenv = new Map([...readEnvExample(), ['API_KEYS', JSON.stringify([{ id: 'admin', hash: hashApiKey(key), scopes: ['runs:read'] }])]]);
  const compose = interpolatedCompose(dotenv);
  const env = containerEnvironment(compose, service, dockerfile);
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-container-'));
  const [volume] = volumeMounts(compose, service);
  for (const [name, value] of env) if (volume !== undefined && value.startsWith(volume.target)) env.set(name, dataDir + value.slice(volume.target.length));
  const published = compose.services[service]?.ports?.[0];
  if (published !== undefined) expect(env.get('PORT')).toBe(portMapping(published).containerPort);
  const port = await freePort();
  env.set('PORT', String(port));
  rewrite(env);
  return { env: { PATH: process.env.PATH, ...Object.fromEntries(env) }, port, dataDir, key };
}

/** The Dockerfile's CMD (or a compose service's `command`), run from the repository root (the image's WORKDIR holds the same files). */
function startCmd(container: Container, command: readonly string[] = cmd): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  expect(command[0]).toBe('node');
  const child = spawn(process.execPath, command.slice(1), { cwd: REPO_ROOT, env: container.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs the HEALTHCHECK until it passes, as Docker does, or fails at the deadline with the service's output. */
async function waitHealthy(container: Container, started: ReturnType<typeof startCmd>): Promise<void> {
  const deadline = Date.now() + scaled(60_000);
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`the service exited with ${started.child.exitCode}:\n${started.output()}`);
    if ((await runHealthcheck(container.env)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the HEALTHCHECK did not pass in time:\n${started.output()}`);
}

describe('the container start command with the compose environment (e2e)', () => {
  beforeAll(() => ensureBuilt(), scaled(300_000));

  let started: ReturnType<typeof startCmd> | undefined;
  let container: Container | undefined;
  let esdb: EsdbTestServer | undefined;
  let postgres: PostgresTestServer | undefined;

  afterEach(async () => {
    if (started !== undefined && started.child.exitCode === null) started.child.kill('SIGKILL');
    started = undefined;
    if (container !== undefined) rmSync(container.dataDir, { recursive: true, force: true });
    container = undefined;
    await esdb?.stop();
    esdb = undefined;
    await postgres?.stop();
    postgres = undefined;
  });

  async function checkContainer(service: string, c: Container): Promise<void> {
    container = c;
    expect(workdir).toMatch(/^\//); // the image's WORKDIR, here the repository root
    // Before the service listens, the health check fails.
    expect(await runHealthcheck(c.env)).not.toBe(0);
    started = startCmd(c);
    await waitHealthy(c, started);
    const output = started.output;
    expect(output()).toContain(`listening on http://0.0.0.0:${c.port}`);
    // The API key from .env is the service's: without it 401, with it 200.
    const base = `http://127.0.0.1:${c.port}`;
    expect((await fetch(`${base}/runs`)).status).toBe(401);
    expect((await fetch(`${base}/runs`, { headers: { authorization: `Bearer ${c.key}` } })).status).toBe(200);
    // The data is in the volume's folder.
    expect(existsSync(join(c.dataDir, 'read-models.sqlite'))).toBe(true);
    if (service === 'agent-ledger') expect(existsSync(join(c.dataDir, 'agent-ledger.sqlite'))).toBe(true);
    else expect(existsSync(join(c.dataDir, 'agent-ledger.sqlite'))).toBe(false);
    started.child.kill('SIGTERM');
    expect({ code: await started.exited, said: output().includes('SIGTERM: shutting down') }).toEqual({ code: 0, said: true });
  }

  it(
    'agent-ledger: the HEALTHCHECK passes, the API takes the key from .env, the data is in the volume, and SIGTERM stops it with exit 0',
    async () => {
      await checkContainer('agent-ledger', await containerOf('agent-ledger'));
    },
    scaled(120_000),
  );

  it(
    'agent-ledger-esdb: the same on EventStoreDB (the protocol-level test server in place of the eventstore service)',
    async () => {
      esdb = await startEsdbTestServer();
      const address = new URL(esdb.connectionString.replace(/^esdb:/, 'http:')).host;
      const c = await containerOf('agent-ledger-esdb', (env) => {
        const connection = env.get('EVENTSTORE_CONNECTION_STRING') ?? '';
        expect(connection).toMatch(/^esdb:\/\/eventstore:2113\?/);
        env.set('EVENTSTORE_CONNECTION_STRING', connection.replace('eventstore:2113', address));
      });
      await checkContainer('agent-ledger-esdb', c);
    },
    scaled(120_000),
  );

  it(
    'agent-ledger-pg and agent-ledger-pg-worker: the same on PostgreSQL (a private cluster with the postgres service\'s user and database in its place); the worker starts on it and stops on SIGTERM with exit 0',
    async () => {
      postgres = await startPostgresTestServer();
      const dotenv = new Map([...readEnvExample(), ['API_KEYS', '[]']]);
      const database = interpolatedCompose(dotenv).services.postgres?.environment ?? {};
      // What the postgres image's entrypoint does with these variables on its first start.
      const admin = new Client({ connectionString: postgres.connectionString });
      await admin.connect();
      try {
        await admin.query(`CREATE ROLE ${String(database.POSTGRES_USER)} LOGIN PASSWORD '${String(database.POSTGRES_PASSWORD)}'`);
        await admin.query(`CREATE DATABASE ${String(database.POSTGRES_DB)} OWNER ${String(database.POSTGRES_USER)}`);
      } finally {
        await admin.end();
      }
      const address = `127.0.0.1:${postgres.port}`;
      const toCluster = (env: Map<string, string>): void => {
        const connection = env.get('POSTGRES_CONNECTION_STRING') ?? '';
        expect(connection).toMatch(/^postgresql:\/\/[^@]+@postgres:5432\//);
        env.set('POSTGRES_CONNECTION_STRING', connection.replace('@postgres:5432/', `@${address}/`));
      };
      const c = await containerOf('agent-ledger-pg', toCluster);
      await checkContainer('agent-ledger-pg', c);
      // The store's schema is in the compose file's database, made by the service at start.
      const check = new Client({ connectionString: c.env.POSTGRES_CONNECTION_STRING });
      await check.connect();
      try {
        expect((await check.query('SELECT count(*)::int AS n FROM agent_ledger.store_identity')).rows[0]).toEqual({ n: 1 });
      } finally {
        await check.end();
      }
      rmSync(c.dataDir, { recursive: true, force: true });

      const workerCommand = interpolatedCompose(dotenv).services['agent-ledger-pg-worker']?.command as string[];
      const w = await containerOf('agent-ledger-pg-worker', toCluster);
      container = w;
      const worker = startCmd(w, workerCommand);
      started = worker;
      const deadline = Date.now() + scaled(60_000);
      while (!worker.output().includes('agent-ledger worker started')) {
        if (worker.child.exitCode !== null) throw new Error(`the worker exited with ${worker.child.exitCode}:\n${worker.output()}`);
        if (Date.now() > deadline) throw new Error(`the worker did not say it started:\n${worker.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(worker.output()).toMatch(/agent-ledger worker started: .*PostgreSQL/);
      expect(existsSync(join(w.dataDir, 'processors.sqlite'))).toBe(true);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    },
    scaled(180_000),
  );
});
