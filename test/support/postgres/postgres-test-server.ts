import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../free-port';

const run = promisify(execFile);

/** The user the private cluster belongs to and connects as (trust authentication). */
export const POSTGRES_TEST_USER = 'agent_ledger_test';

/** A private PostgreSQL cluster started for a test file. */
export interface PostgresTestServer {
  /** `postgresql://agent_ledger_test@127.0.0.1:<port>/postgres`. */
  readonly connectionString: string;
  /** The loopback port it listens on. */
  readonly port: number;
  /** The cluster's folder (data directory and unix socket). */
  readonly directory: string;
  /** Stops the server (fast shutdown: open connections are cut), keeping the data. */
  stopServer(): Promise<void>;
  /** Starts the stopped server again on the same port and data (nothing to do when it runs). */
  startServer(): Promise<void>;
  /** Stops then starts the server: every open connection is cut. */
  restart(): Promise<void>;
  /** Stops the server and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

/** Where PostgreSQL's server binaries are: on PATH, or Debian's /usr/lib/postgresql/<version>/bin. */
export function findPostgresBinaries(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = join(root, version, 'bin');
      if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
    }
  }
  throw new Error(
    'PostgreSQL server binaries (initdb, pg_ctl) not found on PATH nor in /usr/lib/postgresql/*/bin: ' +
      '.ci/run installs them (apt-get install postgresql); on a development machine run `sudo apt-get install postgresql`.',
  );
}

/** The uid and gid of the `postgres` system user, when this process is root (initdb refuses to run as root). */
async function unprivilegedUser(): Promise<{ name: string; uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { name: 'postgres', uid, gid };
  } catch (error) {
    throw new Error('running as root, and there is no `postgres` system user to run initdb and pg_ctl as (apt-get install postgresql creates it)', {
      cause: error,
    });
  }
}

/**
 * Starts a private PostgreSQL cluster: `initdb` into a fresh temporary folder
 * (trust authentication, user {@link POSTGRES_TEST_USER}), listening on
 * 127.0.0.1 only at a free port, its unix socket inside the folder, started
 * with `pg_ctl start -w`. As root, initdb and pg_ctl run as the `postgres`
 * system user, who owns the folder. Call `stop()` after the tests.
 */
export async function startPostgresTestServer(): Promise<PostgresTestServer> {
  const bin = findPostgresBinaries();
  const user = await unprivilegedUser();
  const directory = mkdtempSync(join(tmpdir(), 'agent-ledger-pg-'));
  const data = join(directory, 'data');
  if (user) chownSync(directory, user.uid, user.gid);
  const as = (command: string, args: string[]): Promise<{ stdout: string; stderr: string }> =>
    user ? run('runuser', ['-u', user.name, '--', join(bin, command), ...args]) : run(join(bin, command), args);

  const port = await freePort();
  const settings = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${directory}`,
    `-c max_connections=200`,
    `-c fsync=on`,
  ].join(' ');
  let running = false;
  const startServer = async (): Promise<void> => {
    if (running) return;
    await as('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', join(directory, 'server.log'), '-o', settings]);
    running = true;
  };
  const stopServer = async (): Promise<void> => {
    if (!running) return;
    await as('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', data]);
    running = false;
  };
  let removed = false;
  const stop = async (): Promise<void> => {
    if (removed) return;
    try {
      await stopServer();
    } finally {
      removed = true;
      rmSync(directory, { recursive: true, force: true });
    }
  };
  try {
    await as('initdb', ['-D', data, '--auth=trust', '-U', POSTGRES_TEST_USER, '--encoding=UTF8', '--no-locale', '--no-sync']);
    await startServer();
  } catch (error) {
    await stop().catch(() => undefined);
    throw new Error(`could not start the private PostgreSQL cluster in ${directory}: ${(error as Error).message}`, { cause: error });
  }
  return {
    connectionString: `postgresql://${POSTGRES_TEST_USER}@127.0.0.1:${port}/postgres`,
    port,
    directory,
    stopServer,
    startServer,
    restart: async () => {
      await stopServer();
      await startServer();
    },
    stop,
  };
}
