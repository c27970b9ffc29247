/**
 * Where the read models and the saga should run beside the workers, measured
 * side by side in one run (docs/benchmarks.md, "Every core: worker
 * processes"): tool steps/s of queued runs of 10 no-op steps, C runs in
 * flight, on the embedded store, with
 *   one      workers, read models and saga in one process;
 *   process  the workers in a second process (WORKER_PROCESSES' layout), read models and saga here;
 *   thread   the workers in a worker thread of this process, read models and saga on its main thread.
 * The first round warms up and is not counted; medians of the others.
 *
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/split-ab.ts
 *   ROUNDS=4 CS=1,8,64 LAYOUTS=one,process,thread EFFECT=READ_ONLY DURABILITY=processCrash (the defaults but DURABILITY: powerLoss)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolEffect } from '@agent-ledger/domain';
import { productStepRound, WorkerChild } from './scenarios/steps/product-round';
import { median } from './support/stats';

async function main() {
  const rounds = Number(process.env.ROUNDS ?? 4);
  const cs = (process.env.CS ?? '1,8,64').split(',').map(Number);
  const layouts = (process.env.LAYOUTS ?? 'one,process,thread').split(',');
  const effect = (process.env.EFFECT ?? 'READ_ONLY') as ToolEffect;
  const durability = (process.env.DURABILITY ?? 'powerLoss') as 'powerLoss' | 'processCrash';
  const proc = new WorkerChild('process');
  const thread = new WorkerChild('thread');
  const results: Record<string, number[]> = {};
  const p99s: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  try {
    for (let r = 0; r < rounds; r++) {
      for (const c of cs) {
        const totalRuns = c === 1 ? 100 : c === 8 ? 400 : 1280;
        for (const layout of layouts) {
          const dir = mkdtempSync(join(tmpdir(), 'ab-split-'));
          try {
            const worker = layout === 'one' ? null : layout === 'process' ? proc : thread;
            const res = await productStepRound({ dir, durability, effect, runs: c, totalRuns, stepsPerRun: 10, worker, layout: worker === null ? 'shared' : 'apart' });
            const key = `C=${c} ${layout}`;
            if (r === 0 && rounds > 1) { console.error(`warm-up ${key}: ${res.stepsPerSecond.toFixed(0)}`); continue; }
            (results[key] ??= []).push(res.stepsPerSecond);
            (p99s[key] ??= []).push(res.p99Ms);
            (cpu[key] ??= []).push(res.cpuMsPerStep);
            console.error(`round ${r} ${key}: ${res.stepsPerSecond.toFixed(0)} steps/s p99 ${res.p99Ms.toFixed(1)} ms, main cpu ${res.cpuMsPerStep.toFixed(3)} ms/step`);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      }
    }
  } finally {
    proc.stop();
    thread.stop();
  }
  for (const key of Object.keys(results))
    console.log(`${key.padEnd(16)} ${median(results[key]!).toFixed(0).padStart(6)} steps/s  p99 ${median(p99s[key]!).toFixed(1)} ms  main-thread-process cpu ${median(cpu[key]!).toFixed(3)} ms/step   samples ${results[key]!.map((x) => x.toFixed(0)).join('/')}`);
  process.exit(0);
}
void main();
