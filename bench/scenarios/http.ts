/**
 * The `http` scenario of `npm run bench` (issue 9, item 5): runs started per
 * second over the API, with a load generator on loopback, and the latency
 * percentiles of `POST /runs`.
 *
 * Each round starts three child processes on fresh folders: the real
 * service with its workers off (`workers.concurrency` 0: only the API
 * appends), the real service with its workers on (the default concurrency:
 * the runs execute while the load runs), and the baseline server ("the cost
 * of HTTP plus one durable append", `http/baseline-server.ts`). Each is
 * loaded in turn with C = 1, 16 and 64 keep-alive connections sending
 * queued `POST /runs` back to back (a unique `runId` each), a warm-up, then
 * the measured window; the others idle meanwhile. Method and settings:
 * docs/benchmarks.md.
 *
 * `BENCH_HTTP_CPU_PROFILE=<dir>` adds, after the rounds, one more service
 * (workers off) under `node --cpu-prof` (the profile is kept in `<dir>`),
 * loaded at C = 16, and lists in the notes where its CPU went in the window:
 * by stage of a request and by function.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import { ChildServer, stopAllChildServers } from './http/child-server';
import type { LoadResult } from './http/load-generator';
import { runLoad } from './http/load-generator';
import type { BenchService, ServiceEntry, ServiceFigures } from './http/service-fixture';
import { profileStages } from './http/profile-stages';
import { BENCH_AGENT, chooseServiceEntry, childEnvironment, readServiceFigures, REPOSITORY_ROOT, startBenchService } from './http/service-fixture';
import { summariseCpuProfile } from './rebuild/cpu-profile';

/** Concurrent connections of the load generator. */
export const HTTP_CONNECTIONS = [1, 16, 64] as const;
/** The service's two configurations: workers off (only the API appends) and on (default concurrency). */
export const HTTP_WORKERS = ['off', 'on'] as const;

type Variant = Readonly<Record<string, string | number | boolean>>;
type WorkersSetting = (typeof HTTP_WORKERS)[number];

/** Sizes of a run of the scenario. */
interface HttpSizes {
  readonly warmUpMs: number;
  readonly durationMs: number;
  /** How long a child may take to listen: ts-node on a loaded 2-core machine takes tens of seconds. */
  readonly startTimeoutMs: number;
}

const FULL: HttpSizes = { warmUpMs: 2_000, durationMs: 10_000, startTimeoutMs: 180_000 };
const QUICK: HttpSizes = { warmUpMs: 250, durationMs: 1_000, startTimeoutMs: 180_000 };

/** The same body as the service's, less the run id: the input of a queued run of the bench agent. */
const INPUT = 'What time is it?';

/** Samples per round, kept in the order they were first seen. */
class SampleTable {
  private readonly rows = new Map<string, { readonly head: Omit<Measurement, 'samples'>; readonly samples: number[] }>();

  add(head: Omit<Measurement, 'samples'>, value: number): void {
    const key = JSON.stringify([head.subject, head.variant, head.metric]);
    const row = this.rows.get(key) ?? { head, samples: [] };
    row.samples.push(value);
    this.rows.set(key, row);
  }

  samples(subject: Measurement['subject'], variant: Variant, metric: string): number[] {
    return this.rows.get(JSON.stringify([subject, variant, metric]))?.samples ?? [];
  }

  measurements(): Measurement[] {
    return [...this.rows.values()].map((row) => ({ ...row.head, samples: row.samples }));
  }
}

/** A server under load: the baseline, or the service in one configuration. */
interface Target {
  readonly subject: 'product' | 'baseline';
  readonly workers: WorkersSetting | null;
  readonly server: ChildServer;
  /** The service's API key; null for the baseline (no auth). */
  readonly service: BenchService | null;
}

function variantOf(target: Target, connections: number): Variant {
  return target.workers === null ? { connections } : { connections, workers: target.workers };
}

function label(target: Target): string {
  return target.workers === null ? 'baseline' : `product workers=${target.workers}`;
}

/** A promise's outcome, held until it is looked at (a rejection is then thrown, not left unhandled meanwhile). */
type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function unwrap<T>(settled: Settled<T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/** Loads one target at one C, and records its figures. */
async function measure(context: BenchContext, sizes: HttpSizes, table: SampleTable, notes: string[], round: number, target: Target, connections: number, generatorCpu: SampleTable): Promise<LoadResult> {
  const tag = randomBytes(4).toString('hex');
  const cpu = { atStart: null as number | null, atEnd: null as number | null };
  const figures: { atStart: Promise<Settled<ServiceFigures>> | null; atEnd: Promise<Settled<ServiceFigures>> | null } = { atStart: null, atEnd: null };
  const result = await runLoad({
    port: target.server.port,
    path: '/runs',
    headers: target.service === null ? {} : { authorization: target.service.authorization },
    connections,
    warmUpMs: sizes.warmUpMs,
    durationMs: sizes.durationMs,
    body: (connection, sequence) => JSON.stringify({ agent: BENCH_AGENT, input: INPUT, mode: 'queued', runId: `h${tag}-c${connections}-${connection}-${sequence}` }),
    onWindow: (edge) => {
      const cpuMs = target.server.cpuMs();
      if (edge === 'start') cpu.atStart = cpuMs;
      else cpu.atEnd = cpuMs;
      // Workers on: how many runs the service executed during the window (its own counter, read over the same loaded API).
      if (target.service !== null && target.workers === 'on') {
        if (edge === 'start') figures.atStart = settle(readServiceFigures(target.service));
        else figures.atEnd = settle(readServiceFigures(target.service));
      }
    },
  });
  if (target.server.exited !== null) throw new Error(`${target.server.name} ended during the load (${target.server.exited}); last lines:\n${target.server.lastLines()}`);
  const variant = variantOf(target, connections);
  const subject = target.subject;
  const failed = [...result.failures.values()].reduce((sum, n) => sum + n, 0);
  table.add({ subject, variant, metric: 'runs started/s', unit: 'runs/s', better: 'higher' }, result.succeeded / result.seconds);
  for (const p of [50, 90, 99] as const) table.add({ subject, variant, metric: `p${p} latency`, unit: 'ms', better: 'lower' }, result.latencies.percentile(p));
  table.add({ subject, variant, metric: 'max latency', unit: 'ms', better: 'lower' }, result.latencies.percentile(100));
  table.add({ subject, variant, metric: 'failed requests', unit: 'requests', better: 'lower' }, failed);
  if (cpu.atStart !== null && cpu.atEnd !== null && result.succeeded > 0) {
    const used = cpu.atEnd - cpu.atStart;
    table.add({ subject, variant, metric: 'server CPU per run started', unit: 'ms', better: 'lower' }, used / result.succeeded);
    table.add({ subject, variant, metric: 'server CPU', unit: '% of a core', better: 'lower' }, (used / sizes.durationMs) * 100);
  }
  generatorCpu.add({ subject, variant, metric: 'generator CPU', unit: '% of a core', better: 'lower' }, (result.generatorCpuMs / sizes.durationMs) * 100);
  if (figures.atStart !== null && figures.atEnd !== null) {
    const before = unwrap(await figures.atStart);
    const after = unwrap(await figures.atEnd);
    table.add({ subject, variant, metric: 'runs executed/s', unit: 'runs/s', better: 'higher' }, (after.segmentsEnded - before.segmentsEnded) / result.seconds);
  }
  if (failed > 0) {
    const kinds = [...result.failures].map(([kind, n]) => `${kind} x${n} (first: ${result.failureSamples.get(kind) ?? ''})`).join('; ');
    notes.push(`round ${round}, ${label(target)}, C=${connections}: ${failed} failed request(s), warm-up included: ${kinds}`);
  }
  context.log(
    `round ${round} ${label(target)} C=${connections}: ${(result.succeeded / result.seconds).toFixed(0)} runs/s, p50 ${result.latencies.percentile(50).toFixed(1)} ms, ` +
      `p99 ${result.latencies.percentile(99).toFixed(1)} ms, ${failed} failed`,
  );
  return result;
}

function startBaseline(folder: string, sizes: HttpSizes): Promise<ChildServer> {
  return ChildServer.start({
    name: 'baseline server',
    nodeArgs: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join('bench', 'scenarios', 'http', 'baseline-server.ts'), join(folder, 'baseline.sqlite')],
    env: childEnvironment({ TS_NODE_TRANSPILE_ONLY: '1', NODE_ENV: 'production' }),
    cwd: REPOSITORY_ROOT,
    listeningLine: /baseline listening on http:\/\/127\.0\.0\.1:(\d+)/,
    startTimeoutMs: sizes.startTimeoutMs,
  });
}

/** Starts the round's three servers at once (they idle until their turn); on a failure, stops those that started and throws. */
async function startRound(context: BenchContext, sizes: HttpSizes, entry: ServiceEntry, round: number): Promise<Target[]> {
  const started = Date.now();
  const settled = await Promise.allSettled([
    startBaseline(context.tempDir(`r${round}-baseline`), sizes).then((server): Target => ({ subject: 'baseline', workers: null, server, service: null })),
    ...HTTP_WORKERS.map((workers) =>
      startBenchService({
        folder: context.tempDir(`r${round}-workers-${workers}`),
        workerConcurrency: workers === 'off' ? 0 : null,
        entry,
        startTimeoutMs: sizes.startTimeoutMs,
        name: `service workers=${workers}`,
      }).then((service): Target => ({ subject: 'product', workers, server: service.server, service })),
    ),
  ]);
  const targets = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason instanceof Error ? s.reason.message : String(s.reason)] : []));
  if (failures.length > 0) {
    await Promise.all(targets.map((t) => t.server.stop()));
    throw new Error(`round ${round}: could not start every server: ${failures.join('\n')}`);
  }
  context.log(`round ${round}: baseline and both services listening after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return targets;
}

/** What the workers-on service had done when its last load ended, for a note. */
function workersOnNote(round: number, startedOverApi: number, figures: ServiceFigures): string {
  const byStatus = Object.entries(figures.runsByStatus)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return (
    `round ${round}, workers on: ${startedOverApi} runs started over the API (3 loads, warm-ups included); when the last load ended, ${figures.segmentsEnded} segments had ended ` +
    `(one per run of ${BENCH_AGENT}) and the run-status read model said ${byStatus} with ${figures.projectionLagEvents} event(s) of projection lag`
  );
}

/** Connections of the profiled load. */
const PROFILE_CONNECTIONS = 16;

/** One more service (workers off) under `--cpu-prof`, loaded at C = 16; where its CPU went in the window, for the notes. */
async function profileService(context: BenchContext, sizes: HttpSizes, entry: ServiceEntry, profileDir: string): Promise<string[]> {
  mkdirSync(profileDir, { recursive: true });
  const before = new Set(readdirSync(profileDir));
  context.log(`profiling one more service (workers off, C=${PROFILE_CONNECTIONS}) with --cpu-prof into ${profileDir}`);
  const service = await startBenchService({
    folder: context.tempDir('profile'),
    workerConcurrency: 0,
    entry,
    startTimeoutMs: sizes.startTimeoutMs,
    name: 'service workers=off (profiled)',
    extraNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
  });
  const window = { fromUs: 0, toUs: 0 };
  let result: LoadResult;
  try {
    const tag = randomBytes(4).toString('hex');
    result = await runLoad({
      port: service.server.port,
      path: '/runs',
      headers: { authorization: service.authorization },
      connections: PROFILE_CONNECTIONS,
      warmUpMs: sizes.warmUpMs,
      durationMs: sizes.durationMs,
      body: (connection, sequence) => JSON.stringify({ agent: BENCH_AGENT, input: INPUT, mode: 'queued', runId: `p${tag}-${connection}-${sequence}` }),
      onWindow: (edge) => {
        const nowUs = Number(process.hrtime.bigint() / 1000n);
        if (edge === 'start') window.fromUs = nowUs;
        else window.toUs = nowUs;
      },
    });
  } finally {
    await service.server.stop(); // the profile is written as the process exits
  }
  const written = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
  if (written.length !== 1) throw new Error(`expected one new .cpuprofile in ${profileDir}, found ${written.length}`);
  const file = join(profileDir, written[0] as string);
  const stages = profileStages(file, window);
  const functions = summariseCpuProfile(file, window, REPOSITORY_ROOT, 20);
  const share = (s: number) => `${(s * 100).toFixed(1)}%`;
  return [
    `CPU profile of the service (workers off, C=${PROFILE_CONNECTIONS}, ${formatNumber(result.succeeded / result.seconds)} runs/s under the profiler): ${file}; ${formatNumber(stages.sampledMs)} ms sampled in the window`,
    `profile, by stage: ${stages.stages.map((s) => `${s.stage} ${share(s.share)}`).join('; ')}`,
    `profile, self time by function: ${functions.functions.map((f) => `${f.name} ${share(f.share)}`).join('; ')}`,
  ];
}

async function runHttp(context: BenchContext): Promise<ScenarioResult> {
  const sizes = context.quick ? QUICK : FULL;
  const entry = chooseServiceEntry();
  context.log(`service started from ${entry.kind}: ${entry.reason}`);
  const table = new SampleTable();
  const generatorCpu = new SampleTable();
  const notes: string[] = [];
  try {
    for (let round = 1; round <= context.rounds; round += 1) {
      const targets = await startRound(context, sizes, entry, round);
      try {
        for (const target of targets) {
          let startedOverApi = 0;
          for (const connections of HTTP_CONNECTIONS) {
            startedOverApi += (await measure(context, sizes, table, notes, round, target, connections, generatorCpu)).succeededTotal;
          }
          if (target.service !== null && target.workers === 'on') notes.push(workersOnNote(round, startedOverApi, await readServiceFigures(target.service)));
          await target.server.stop();
        }
      } finally {
        await Promise.all(targets.map((t) => t.server.stop()));
      }
    }
    const profileDir = process.env['BENCH_HTTP_CPU_PROFILE'];
    if (profileDir !== undefined && profileDir !== '') notes.push(...(await profileService(context, sizes, entry, profileDir)));
  } finally {
    await stopAllChildServers();
  }

  const ratios: Ratio[] = [];
  for (const connections of HTTP_CONNECTIONS) {
    const baselineRate = table.samples('baseline', { connections }, 'runs started/s');
    ratios.push({ name: 'product/baseline HTTP runs/s', variant: { connections }, samples: ratioSamples(table.samples('product', { connections, workers: 'off' }, 'runs started/s'), baselineRate) });
    ratios.push({ name: 'product (workers on)/baseline HTTP runs/s', variant: { connections }, samples: ratioSamples(table.samples('product', { connections, workers: 'on' }, 'runs started/s'), baselineRate) });
    const baselineCpu = table.samples('baseline', { connections }, 'server CPU per run started');
    const productCpu = table.samples('product', { connections, workers: 'off' }, 'server CPU per run started');
    if (baselineCpu.length === context.rounds && productCpu.length === context.rounds) {
      ratios.push({ name: 'product/baseline server CPU per run started', variant: { connections }, samples: ratioSamples(productCpu, baselineCpu), better: 'lower' });
    }
  }

  const generatorShares = generatorCpu
    .measurements()
    .map((m) => `${m.subject}${m.variant.workers === undefined ? '' : ` workers=${String(m.variant.workers)}`} C=${String(m.variant.connections)} ${median(m.samples).toFixed(0)}%`)
    .join(', ');
  notes.unshift(
    `service: ${entry.kind === 'dist' ? 'the built dist/.../main.js' : 'the sources through ts-node (transpile-only)'} (${entry.reason}); embedded store, default durability (processCrash: WAL, synchronous=NORMAL, group commit), ` +
      `NODE_ENV=production, one API key (sha256 hash), agent ${BENCH_AGENT} (scripted model: clock.now, then a final answer); workers off = workers.concurrency 0, on = the default (4)`,
    `load: node:http keep-alive agent in the bench process, C connections each with one POST /runs in flight (mode queued, a unique runId), ${sizes.warmUpMs} ms warm-up then a ${sizes.durationMs} ms window per C, ` +
      `C = ${HTTP_CONNECTIONS.join(', ')} in that order on one server per configuration and round (workers on: the runs queued by one load are still being executed during the next); ` +
      `a request counts in the window when its answer arrives in it; latencies of 2xx answers only; failed requests: non-2xx answers and transport errors over the whole load, warm-up included`,
    `baseline: node:http server, JSON.parse of the same body, hand checks of agent and runId, one RunRequested append (expected revision: no stream) to a SqliteEventStore with the same defaults, 202 with the same body shape; no auth, no Nest, no decider, no read models`,
    `server CPU: user+system time of the server process from /proc/<pid>/stat over the window, divided by the runs started in it (workers on: includes executing runs); generator CPU (bench process), median % of a core: ${generatorShares}`,
  );
  return { measurements: table.measurements(), ratios, targets: [], notes };
}

/** HTTP: runs started per second over the API, with a load generator on loopback, and latency percentiles. */
export const httpScenario: BenchScenario = {
  name: 'http',
  title: 'HTTP: runs started per second over the API',
  run: runHttp,
};
