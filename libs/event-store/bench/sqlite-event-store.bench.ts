/**
 * Benchmarks of the embedded store. Run from the repository root:
 *
 *   node -r ts-node/register/transpile-only libs/event-store/bench/sqlite-event-store.bench.ts
 *
 * Prints appends/s for concurrent callers with and without group commit, in
 * both durability modes, and the cross-process live latency (another process
 * appends; this one is subscribed). Not part of the test suite.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExpectedRevision } from '../src/port/expected-revision';
import { SqliteEventStore } from '../src/sqlite/sqlite-event-store';
import type { Durability } from '../src/sqlite/sqlite-options';
import { startSqliteWorker } from '../src/testing/child-process';

const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-bench-'));

async function appendThroughput(durability: Durability, groupCommit: boolean, callers: number, perCaller: number): Promise<string> {
  const store = SqliteEventStore.open({ path: join(dir, `${durability}-${groupCommit}-${callers}.sqlite`), durability, groupCommit });
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
  const stats = store.stats();
  await store.close();
  const total = callers * perCaller;
  return `${durability.padEnd(12)} groupCommit=${String(groupCommit).padEnd(5)} callers=${String(callers).padStart(3)}: ${Math.round(total / seconds)
    .toString()
    .padStart(7)} appends/s (${stats.transactions} transactions, largest batch ${stats.largestBatch})`;
}

async function crossProcessLatency(count: number, gapMs: number): Promise<string> {
  const path = join(dir, 'latency.sqlite');
  const store = SqliteEventStore.open({ path });
  const stream = `latency-${randomUUID()}`;
  const subscription = store.subscribeToStream(stream);
  const worker = startSqliteWorker(['append-timed', path, stream, String(count), String(gapMs)]);
  const latencies: number[] = [];
  for await (const event of subscription) {
    latencies.push(Date.now() - (event.data as { sentAt: number }).sentAt);
    if (latencies.length === count) break;
  }
  await worker.exited;
  await store.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return `cross-process live latency, ${count} appends ${gapMs} ms apart: p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${latencies[latencies.length - 1]} ms`;
}

async function localLatency(count: number): Promise<string> {
  const store = SqliteEventStore.open({ path: join(dir, 'local.sqlite') });
  const stream = `latency-${randomUUID()}`;
  const subscription = store.subscribeToStream(stream);
  const iterator = subscription[Symbol.asyncIterator]();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const next = iterator.next();
    const t0 = process.hrtime.bigint();
    await store.append(stream, [{ id: randomUUID(), type: 'T', data: {} }], { expectedRevision: ExpectedRevision.ANY });
    await next;
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  await subscription.close();
  await store.close();
  latencies.sort((a, b) => a - b);
  return `same-process append -> subscription delivery: p50 ${latencies[Math.floor(count / 2)]?.toFixed(2)} ms, max ${latencies[count - 1]?.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  try {
    for (const durability of ['processCrash', 'powerLoss'] as const) {
      for (const groupCommit of [false, true]) {
        console.log(await appendThroughput(durability, groupCommit, 1, 2000));
        console.log(await appendThroughput(durability, groupCommit, 50, 100));
      }
    }
    console.log(await localLatency(200));
    console.log(await crossProcessLatency(100, 37));
    console.log(await crossProcessLatency(20, 500));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
