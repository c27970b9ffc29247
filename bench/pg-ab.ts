/**
 * The product's step on PostgreSQL against the embedded store, in one sitting
 * (docs/benchmarks.md, "Issue 27: PostgreSQL at its best"): `productStepRound`
 * of queued runs of K no-op steps, C runs in flight, alternately on the
 * embedded store (`powerLoss`) and on a private PostgreSQL cluster (fsync on,
 * a fresh schema per round); steps/s, the process's CPU per step, commits per
 * step, p99. The first round of each configuration warms up and is not counted.
 *
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/pg-ab.ts
 *   ROUNDS=3 CS=1,8,64 STORES=sqlite,postgres EFFECT=READ_ONLY STEPS=10 PROFILE=<file prefix> (profiles the last PostgreSQL round of each C)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolEffect } from '@agent-ledger/domain';
import { productStepRound } from './scenarios/steps/product-round';
import { startBenchCluster } from './support/postgres-cluster';
import { median } from './support/stats';

async function main(): Promise<void> {
  const rounds = Number(process.env.ROUNDS ?? 3);
  const cs = (process.env.CS ?? '1,8,64').split(',').map(Number);
  const stores = (process.env.STORES ?? 'sqlite,postgres').split(',');
  const effect = (process.env.EFFECT ?? 'READ_ONLY') as ToolEffect;
  const stepsPerRun = Number(process.env.STEPS ?? 10);
  const profilePrefix = process.env.PROFILE;
  const cluster = stores.includes('postgres') ? await startBenchCluster() : null;
  const figures: Record<string, { sps: number[]; cpu: number[]; commits: number[]; p99: number[] }> = {};
  let schemas = 0;
  try {
    for (let r = 0; r < rounds; r++) {
      for (const c of cs) {
        const totalRuns = c === 1 ? 60 : c === 8 ? 200 : 512;
        for (const kind of stores) {
          const dir = mkdtempSync(join(tmpdir(), 'pg-ab-'));
          try {
            const profile = profilePrefix !== undefined && kind === 'postgres' && r === rounds - 1;
            const store = kind === 'postgres' && cluster !== null ? { kind: 'postgres' as const, connectionString: cluster.server.connectionString, schema: `pgab_${(schemas += 1)}` } : { kind: 'sqlite' as const };
            const res = await productStepRound({ dir, durability: 'powerLoss', effect, runs: c, totalRuns, stepsPerRun, worker: null, store, profile });
            if (res.cpuProfile !== null) writeFileSync(`${profilePrefix}-c${c}.cpuprofile`, JSON.stringify(res.cpuProfile));
            const key = `C=${c} ${kind}`;
            const line = `${res.stepsPerSecond.toFixed(0)} steps/s, cpu ${res.cpuMsPerStep.toFixed(3)} ms/step, ${res.transactionsPerStep.toFixed(3)} commits/step, p99 ${res.p99Ms.toFixed(1)} ms`;
            if (r === 0 && rounds > 1) {
              console.error(`warm-up ${key}: ${line}`);
              continue;
            }
            const f = (figures[key] ??= { sps: [], cpu: [], commits: [], p99: [] });
            f.sps.push(res.stepsPerSecond);
            f.cpu.push(res.cpuMsPerStep);
            f.commits.push(res.transactionsPerStep);
            f.p99.push(res.p99Ms);
            console.error(`round ${r} ${key}: ${line}`);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      }
    }
  } finally {
    await cluster?.server.stop();
  }
  for (const [key, f] of Object.entries(figures)) {
    console.log(
      `${key.padEnd(14)} ${median(f.sps).toFixed(0).padStart(6)} steps/s  cpu ${median(f.cpu).toFixed(3)} ms/step  ${median(f.commits).toFixed(3)} commits/step  p99 ${median(f.p99).toFixed(1)} ms  (steps/s ${f.sps.map((x) => x.toFixed(0)).join('/')}; cpu ${f.cpu.map((x) => x.toFixed(2)).join('/')})`,
    );
  }
  for (const c of cs) {
    const pg = figures[`C=${c} postgres`];
    const sq = figures[`C=${c} sqlite`];
    if (pg && sq) console.log(`C=${c}: CPU per step PostgreSQL / embedded ${(median(pg.cpu) / median(sq.cpu)).toFixed(2)}x`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
