/**
 * The private PostgreSQL cluster of the bench's PostgreSQL rounds (`startPostgresTestServer`,
 * PostgreSQL's binaries of this machine): agent-ledger's PostgreSQL rounds and
 * DBOS's system databases share it. It must flush its WAL (fsync on).
 */
import { Client } from 'pg';
import type { PostgresTestServer } from '../../test/support/postgres';
import { findPostgresBinaries, startPostgresTestServer } from '../../test/support/postgres';

/** Why there is no cluster (no server binaries), or null when there can be one. */
export function postgresMissing(): string | null {
  try {
    findPostgresBinaries();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A started cluster and its settings as a new session sees them. */
export interface BenchCluster {
  readonly server: PostgresTestServer;
  /** e.g. `fsync=on, full_page_writes=on, server_version=15.18 (...), synchronous_commit=on, wal_sync_method=fdatasync`. */
  readonly settings: string;
  /** The connection string of database `name` on the cluster. */
  databaseUrl(name: string): string;
}

/** Starts the cluster; refuses one that runs with fsync off. */
export async function startBenchCluster(): Promise<BenchCluster> {
  const server = await startPostgresTestServer();
  try {
    const client = new Client({ connectionString: server.connectionString });
    await client.connect();
    try {
      const rows = (
        await client.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes', 'commit_delay', 'server_version') ORDER BY name`,
        )
      ).rows;
      if (rows.find((r) => r.name === 'fsync')?.setting !== 'on') throw new Error('the private PostgreSQL cluster runs with fsync off: its figures would not be durable ones');
      const settings = rows.map((r) => `${r.name}=${r.setting}`).join(', ');
      return {
        server,
        settings,
        databaseUrl: (name) => {
          const url = new URL(server.connectionString);
          url.pathname = `/${name}`;
          return url.toString();
        },
      };
    } finally {
      await client.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
}
