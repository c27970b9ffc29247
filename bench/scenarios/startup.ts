/**
 * Start-up (issue 18): the time from starting a worker process on a store of
 * N events, of which 100 runs are unfinished (queued), to its first claim
 * (`RunClaimed` appended), at two sizes of history, on a first start and on a
 * restart (a second start on the same data folder: what a process left there,
 * checkpoints, exists).
 *
 * Method (docs/benchmarks.md, "Start-up"):
 * 1. Once per size, the store is built (`startup/startup-store.ts`, not
 *    measured): copies of realistic finished runs appended in large batches
 *    through the event store, and 100 queued runs of the benchmark's agent
 *    spread along the history.
 * 2. Each round copies the built store into a fresh data folder, then starts
 *    the product in this process as a worker process does
 *    (`AgentLedgerModule` with 4 workers, no read models, no saga, as
 *    `agent-ledger worker --no-saga` runs; `steps/bench-host.ts`), and waits
 *    for the first `RunClaimed` after the store's head: time to first claim =
 *    its `claimedAt` - the moment the start began (wall clock, ms). The host
 *    is closed at once; then started again on the same folder (the restart),
 *    measured the same way.
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ToolEffect } from '@agent-ledger/domain';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import type { BenchHost } from './steps/bench-host';
import { benchAgent, startBenchHost } from './steps/bench-host';
import { positionToParts } from '@agent-ledger/event-store';
import { EventProcessors } from '@agent-ledger/runtime';
import type { StartupStore } from './startup/startup-store';
import { buildStartupStore } from './startup/startup-store';

/** History sizes: the 1M and a tenth of it; the smoke sizes. */
export const STARTUP_EVENTS = { full: [100_000, 1_000_000], quick: [2_000, 8_000] } as const;
/** Runs queued in the history. */
export const STARTUP_QUEUED_RUNS = 100;
/** The target: the first claim within this long of the start. */
export const STARTUP_TARGET_MS = 1_000;
/** Workers of the started process. */
const WORKERS = 4;
const STORE_FILE = 'agent-ledger.sqlite';
const AGENT = benchAgent(ToolEffect.READ_ONLY, 5);

/** How long one start took. */
interface StartTiming {
  /** From the start to the application context's `init()` resolved. */
  readonly initMs: number;
  /** From the start to the first run claimed (its `claimedAt`). */
  readonly firstClaimMs: number;
}

/**
 * Starts the product on `dir`, waits for its first claim after the store's
 * current head, and closes it. With `catchUp`, it first waits until the
 * process's queue has read the history (its processors' checkpoint is past the
 * history's last run event), as a process that ran for a while has: the
 * restart then measures a process that starts from its checkpoint, not one
 * that resumes a catch-up cut short.
 */
async function startOnce(dir: string, deadlineMs: number, catchUp: boolean): Promise<StartTiming> {
  const path = join(dir, STORE_FILE);
  const probe = new Database(path, { readonly: true });
  try {
    const head = (probe.prepare('SELECT max(position) AS head FROM events').get() as { head: number | null }).head ?? 0;
    const lastRunEvent =
      (probe.prepare("SELECT max(position) AS last FROM events WHERE +position <= ? AND event_type IN ('RunRequested', 'RunCompleted')").get(head) as { last: number | null }).last ?? 0;
    const firstClaim = probe.prepare("SELECT json_extract(data, '$.claimedAt') AS at FROM events WHERE +position > ? AND event_type = 'RunClaimed' ORDER BY position LIMIT 1");
    const began = Date.now();
    const host = await startBenchHost({ dataDir: dir, durability: 'processCrash', agents: [AGENT], workerConcurrency: WORKERS, projectionsAndSaga: false });
    try {
      const initMs = Date.now() - began;
      let timing: StartTiming | undefined;
      while (timing === undefined) {
        const row = firstClaim.get(head) as { at: number } | undefined;
        if (row !== undefined) timing = { initMs, firstClaimMs: row.at - began };
        else if (Date.now() - began > deadlineMs) throw new Error(`no run claimed ${deadlineMs} ms after the start (store ${path})`);
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (catchUp) await caughtUp(host, lastRunEvent, began + deadlineMs);
      return timing;
    } finally {
      await host.close();
    }
  } finally {
    probe.close();
  }
}

/** Waits until the host's queue has applied the run events up to `position` (the embedded store's global sequence). */
async function caughtUp(host: BenchHost, position: number, deadline: number): Promise<void> {
  const processors = host.app.get(EventProcessors);
  for (;;) {
    const at = processors.stats().runs?.position ?? null;
    if (at !== null && positionToParts(at).commit >= BigInt(position)) return;
    if (Date.now() > deadline) throw new Error(`the queue did not catch up with position ${position} (at ${at ?? 'none'})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Start-up: time to the first claim on a long history, first start and restart. */
export const startupScenario: BenchScenario = {
  name: 'startup',
  title: 'Start-up: time from a worker process start to its first claim, on a long history with 100 queued runs',
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const sizes = context.quick ? STARTUP_EVENTS.quick : STARTUP_EVENTS.full;
    const deadlineMs = context.quick ? 60_000 : 600_000;
    const measurements: Measurement[] = [];
    const built: StartupStore[] = [];
    const samples = new Map<number, { first: number[]; restart: number[]; init: number[] }>();
    for (const size of sizes) {
      context.log(`building a store of ${formatNumber(size)} events with ${STARTUP_QUEUED_RUNS} queued runs`);
      const store = await buildStartupStore({ path: join(context.tempDir(`store${size}`), STORE_FILE), templateDir: context.tempDir('template'), events: size, queuedRuns: STARTUP_QUEUED_RUNS, agent: AGENT.name, log: context.log });
      built.push(store);
      context.log(`store: ${formatNumber(store.events)} events (${formatNumber(store.finishedRuns)} finished runs, ${store.queuedRunIds.length} queued) built in ${store.seconds.toFixed(1)} s`);
      const s = { first: [] as number[], restart: [] as number[], init: [] as number[] };
      samples.set(size, s);
      for (let round = 0; round < context.rounds; round++) {
        const dir = context.tempDir(`round${size}`);
        for (const suffix of ['', '-wal', '-shm']) if (existsSync(`${store.path}${suffix}`)) copyFileSync(`${store.path}${suffix}`, join(dir, `${STORE_FILE}${suffix}`));
        const first = await startOnce(dir, deadlineMs, true);
        const restart = await startOnce(dir, deadlineMs, false);
        s.first.push(first.firstClaimMs);
        s.restart.push(restart.firstClaimMs);
        s.init.push(first.initMs);
        context.log(`${formatNumber(store.events)} events, round ${round + 1}: first claim ${first.firstClaimMs} ms after the start (init ${first.initMs} ms), after a restart ${restart.firstClaimMs} ms`);
      }
      const variant = { events: store.events, queuedRuns: STARTUP_QUEUED_RUNS };
      measurements.push(
        { subject: 'product', variant: { ...variant, start: 'first' }, metric: 'time to first claim', unit: 'ms', better: 'lower', samples: s.first },
        { subject: 'product', variant: { ...variant, start: 'restart' }, metric: 'time to first claim', unit: 'ms', better: 'lower', samples: s.restart },
        { subject: 'product', variant: { ...variant, start: 'first' }, metric: 'time to init() resolved', unit: 'ms', better: 'lower', samples: s.init },
      );
    }
    const small = samples.get(sizes[0]) as { first: number[]; restart: number[] };
    const large = samples.get(sizes[1]) as { first: number[]; restart: number[] };
    const largeEvents = built[1]?.events ?? 0;
    const ratios: Ratio[] = [
      { name: 'time to first claim, large / small history', variant: { start: 'first' }, samples: ratioSamples(large.first, small.first), better: 'lower' },
      { name: 'time to first claim, large / small history', variant: { start: 'restart' }, samples: ratioSamples(large.restart, small.restart), better: 'lower' },
    ];
    const quickNote = context.quick ? '; QUICK: small histories, not 1M' : '';
    const targets: TargetCheck[] = [
      {
        target: `restart on ${formatNumber(largeEvents)} events with ${STARTUP_QUEUED_RUNS} queued runs: first claim < ${formatNumber(STARTUP_TARGET_MS)} ms`,
        measured: `${formatNumber(median(large.restart))} ms (median of ${context.rounds} round(s)${quickNote})`,
        met: median(large.restart) < STARTUP_TARGET_MS,
      },
      {
        target: 'restart: time to first claim independent of the history (large / small <= 1.5, or both under 100 ms)',
        measured: `${formatNumber(median(large.restart))} vs ${formatNumber(median(small.restart))} ms (x${median(ratioSamples(large.restart, small.restart)).toFixed(2)})`,
        met: median(large.restart) <= 1.5 * median(small.restart) || median(large.restart) < 100,
      },
    ];
    const notes = [
      ...built.map((b) => `store of ${formatNumber(b.events)} events: ${formatNumber(b.finishedRuns)} finished runs (copies of a realistic history's runs under fresh ids), ${b.queuedRunIds.length} queued runs spread along it; built in ${b.seconds.toFixed(0)} s (not measured)`),
      `product: AgentLedgerModule in this process with ${WORKERS} workers, no read models, no audit-gap saga, no reaper (as agent-ledger worker --no-saga), embedded store, processCrash; modules already loaded (the compile of a cold process is not counted)`,
      'time to first claim: claimedAt of the first RunClaimed after the store\'s head - the wall clock when the start began; restart: the same process started again on the same folder after closing the first',
    ];
    return { measurements, ratios, targets, notes };
  },
};
