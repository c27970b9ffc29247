/**
 * Append throughput of the PostgreSQL store on a private cluster (fsync on,
 * the adapter's synchronous_commit=on). Run from the repository root:
 *
 *   node -r ts-node/register/transpile-only libs/event-store/bench/postgres-event-store.bench.ts
 *
 * Prints appends/s for 1 and 64 concurrent callers (one event each, its own
 * stream, exact expected revisions), with and without group commit, and the
 * cluster's fsync and synchronous_commit. Not part of the test suite.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startPostgresTestServer } from '../../../test/support/postgres';
import { ExpectedRevision } from '../src/port/expected-revision';
import { PostgresEventStore } from '../src/postgres/postgres-event-store';

async function appendThroughput(connectionString: string, groupCommit: boolean, callers: number, perCaller: number): Promise<string> {
  const schema = `bench_${groupCommit ? 'group' : 'single'}_${callers}_${Date.now()}`;
  const store = await PostgresEventStore.open({ connectionString, schema, groupCommit, poolSize: 16 });
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      let expected: bigint | 'no_stream' = ExpectedRevision.NO_STREAM;
      for (let i = 0; i < perCaller; i++) {
        const r = await store.append(`bench-${c}`, [{ id: randomUUID(), type: 'Benched', data: { i, pad: 'x'.repeat(200) } }], { expectedRevision: expected });
        expected = r.nextExpectedRevision;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const stats = typeof store.stats === 'function' ? store.stats() : undefined;
  await store.close();
  const total = callers * perCaller;
  return `groupCommit=${String(groupCommit).padEnd(5)} callers=${String(callers).padStart(3)}: ${Math.round(total / seconds)
    .toString()
    .padStart(6)} appends/s${stats ? ` (${stats.transactions} transactions, largest batch ${stats.largestBatch})` : ''}`;
}

async function main(): Promise<void> {
  const server = await startPostgresTestServer();
  try {
    const client = new Client({ connectionString: server.connectionString, options: '-c synchronous_commit=on' });
    await client.connect();
    const settings = await client.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes') ORDER BY name`,
    );
    await client.end();
    console.log(settings.rows.map((r) => `${r.name}=${r.setting}`).join(' '));
    for (const groupCommit of [false, true]) {
      console.log(await appendThroughput(server.connectionString, groupCommit, 1, 500));
      console.log(await appendThroughput(server.connectionString, groupCommit, 64, 40));
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
