/**
 * The `esdb-workers` scenario of `npm run bench` (issue 19, section 3):
 * 1, 2 and 4 `agent-ledger worker` processes on the protocol-level
 * EventStoreDB server run as a process of its own, with one API process
 * (`serve`, `WORKER_CONCURRENCY=0`) taking the runs over HTTP: tool steps per
 * second, and claim conflicts per run (appends proposing `RunClaimed` that
 * the server refused with a wrong expected revision, counted by the server).
 *
 * Each configuration of each round starts its processes on a fresh server
 * (test/multiproc/support/esdb-cluster.ts, the same harness and environment
 * as the e2e tier), waits until they are all up, then submits the runs at
 * once (8 requests in flight) and measures from the first submission until
 * the last run's terminal event, seen on a subscription to `$all`. The
 * absolute figures mean little with an in-memory test server written in
 * Node.js on the same cores as the workers; the shape across 1, 2 and 4
 * workers is the point. Method: docs/benchmarks.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreDBClient, START, streamNameFilter } from '@eventstore/db-client';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult } from '../support/bench-scenario';
import { median, ratioSamples } from '../support/stats';
import { processCpuMs } from './http/child-server';
import { claimConflictFigures } from '../../test/multiproc/support/claim-conflicts';
import { EsdbCluster } from '../../test/multiproc/support/esdb-cluster';
import type { HistoryEvent } from '../../test/crash/support/history';

/** Worker processes of each configuration. */
export const ESDB_WORKER_COUNTS = [1, 2, 4] as const;
/**
 * How the runs reach the workers: the consumer group (the product's default
 * on EventStoreDB) hands each runnable run to one worker process; `racing`
 * (`EVENTSTORE_CONSUMER_GROUP=none`) lets every worker race for every due run.
 */
export const ESDB_DISTRIBUTIONS = { 'consumer group': {}, racing: { EVENTSTORE_CONSUMER_GROUP: 'none' } } as const;
type Distribution = keyof typeof ESDB_DISTRIBUTIONS;
const DISTRIBUTIONS = Object.keys(ESDB_DISTRIBUTIONS) as Distribution[];
/** Segments each worker process executes at once (`--concurrency`). */
export const ESDB_WORKER_CONCURRENCY = 2;
/** Tool steps per run of the bench agent (each a `clock.now`, READ_ONLY), one per round of the model. */
export const ESDB_STEPS_PER_RUN = 4;

const SIZES = { full: { runs: 300 }, quick: { runs: 8 } } as const;
const AGENT = 'esdb-bench';
const TERMINAL = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);

function agentsYaml(): string {
  const rounds = Array.from({ length: ESDB_STEPS_PER_RUN }, () => '        - toolCalls: [{ tool: clock.now }]').join('\n');
  return `agents:
  - name: ${AGENT}
    instructions: Look at the clock ${ESDB_STEPS_PER_RUN} times.
    tools: [clock.now]
    maxIterations: ${ESDB_STEPS_PER_RUN + 2}
    provider:
      type: scripted
      script:
${rounds}
        - final: done
`;
}

/** What one configuration measured. */
interface Sample {
  readonly stepsPerSecond: number;
  readonly seconds: number;
  readonly conflictsPerRun: number;
  readonly conflictsPerClaim: number;
  readonly claimsPerRun: number;
  readonly failedRuns: number;
  /** CPU time (user + system) per tool step during the measurement, by process; null where /proc could not be read. */
  readonly cpuPerStep: { readonly server: number | null; readonly api: number | null; readonly workers: number | null };
}

/** The CPU parts measured: the test server, the API process, the worker processes together. */
const CPU_PARTS = ['server', 'api', 'workers'] as const;

/** CPU ms of each part now (null when a pid's figure cannot be read). */
function cpuNow(cluster: EsdbCluster): Record<(typeof CPU_PARTS)[number], number | null> {
  const sum = (pids: ReadonlyArray<number | null>): number | null => {
    let total = 0;
    for (const pid of pids) {
      const ms = pid === null ? null : processCpuMs(pid);
      if (ms === null) return null;
      total += ms;
    }
    return total;
  };
  return { server: sum([cluster.esdb.pid]), api: sum([cluster.api.pid()]), workers: sum(cluster.workers.map((w) => w.pid())) };
}

/** Runs `runs` runs on a cluster of `workers` worker processes and measures them. */
async function measure(context: BenchContext, round: number, distribution: Distribution, workers: number, runs: number): Promise<Sample> {
  const dir = context.tempDir(`r${round}-${distribution === 'racing' ? 'race' : 'group'}-w${workers}`);
  const agentsPath = join(dir, 'agents.yaml');
  writeFileSync(agentsPath, agentsYaml());
  const exits: string[] = [];
  const cluster = await EsdbCluster.start({
    dir,
    agentsPath,
    workers,
    workerConcurrency: ESDB_WORKER_CONCURRENCY,
    env: ESDB_DISTRIBUTIONS[distribution],
    onExit: (exit) => exits.push(`${exit.process}#${exit.incarnation} ${exit.cause} (code ${exit.code}, signal ${exit.signal}): ${exit.tail.slice(-500)}`),
  });
  const client = EventStoreDBClient.connectionString(cluster.esdb.connectionString);
  try {
    await cluster.waitUntilUp(180_000);
    const baseUrl = await cluster.baseUrl();
    const events = new Map<string, HistoryEvent[]>();
    let terminal = 0;
    let steps = 0;
    let lastTerminalAt = 0;
    let allSettled: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (allSettled = resolve));
    const subscription = client.subscribeToAll({ fromPosition: START, filter: streamNameFilter({ prefixes: ['run-'] }) });
    let subscriptionError: unknown = null;
    subscription.on('error', (error) => {
      subscriptionError = error;
      allSettled();
    });
    subscription.on('data', (resolved) => {
      const event = resolved.event;
      if (event === undefined) return;
      const runId = event.streamId.slice('run-'.length);
      const list = events.get(runId) ?? [];
      list.push({ type: event.type, revision: Number(event.revision), position: '', data: {} });
      events.set(runId, list);
      if (event.type === 'ToolExecuted') steps += 1;
      if (TERMINAL.has(event.type)) {
        terminal += 1;
        lastTerminalAt = Date.now();
        if (terminal === runs) allSettled();
      }
    });
    const tag = `b${round}${distribution === 'racing' ? 'r' : 'g'}w${workers}`;
    const runIds = Array.from({ length: runs }, (_, i) => `${tag}-${i}`);
    const cpuAtStart = cpuNow(cluster);
    const startedAt = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < runIds.length) {
          const runId = runIds[next++] as string;
          const response = await fetch(`${baseUrl}/runs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ agent: AGENT, input: 'tick', mode: 'queued', runId }),
          });
          if (response.status !== 202) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
          await response.text();
        }
      }),
    );
    const deadline = setTimeout(allSettled, 600_000);
    await settled;
    clearTimeout(deadline);
    const cpuAtEnd = cpuNow(cluster);
    await subscription.unsubscribe();
    if (subscriptionError !== null) throw subscriptionError;
    if (terminal < runs) throw new Error(`${runs - terminal} of ${runs} runs were not settled after 600 s`);
    if (exits.length > 0) throw new Error(`a process ended during the measurement:\n${exits.join('\n')}`);
    const seconds = (lastTerminalAt - startedAt) / 1000;
    const conflicts = claimConflictFigures((await cluster.esdb.stats()).appendConflicts, runIds, { runs: events });
    const failedRuns = [...events.values()].filter((list) => list.some((e) => e.type === 'RunFailed' || e.type === 'RunCancelled')).length;
    context.log(
      `round ${round}, ${distribution}, ${workers} worker(s): ${runs} runs in ${seconds.toFixed(1)} s, ${(steps / seconds).toFixed(1)} steps/s, ` +
        `${conflicts.meanPerRun.toFixed(2)} claim conflicts per run (${conflicts.perClaim.toFixed(2)} per won claim)`,
    );
    return {
      stepsPerSecond: steps / seconds,
      seconds,
      conflictsPerRun: conflicts.meanPerRun,
      conflictsPerClaim: conflicts.perClaim,
      claimsPerRun: conflicts.claims / runs,
      failedRuns,
      cpuPerStep: Object.fromEntries(
        CPU_PARTS.map((part) => {
          const [from, to] = [cpuAtStart[part], cpuAtEnd[part]];
          return [part, from === null || to === null || steps === 0 ? null : (to - from) / steps];
        }),
      ) as Sample['cpuPerStep'],
    };
  } finally {
    await client.dispose();
    await cluster.close();
  }
}

/** The scenario. */
export const esdbWorkersScenario: BenchScenario = {
  name: 'esdb-workers',
  title: 'Worker processes on EventStoreDB (protocol-level test server as a process): steps/s and claim conflicts per run, 1, 2 and 4 workers, fed by the consumer group or racing',
  async run(context: BenchContext): Promise<ScenarioResult> {
    const runs = context.quick ? SIZES.quick.runs : SIZES.full.runs;
    const key = (distribution: Distribution, workers: number) => `${distribution}/${workers}`;
    const samples = new Map<string, Sample[]>(DISTRIBUTIONS.flatMap((d) => ESDB_WORKER_COUNTS.map((n) => [key(d, n), []] as [string, Sample[]])));
    for (let round = 1; round <= context.rounds; round += 1) {
      for (const distribution of DISTRIBUTIONS) {
        for (const workers of ESDB_WORKER_COUNTS) samples.get(key(distribution, workers))?.push(await measure(context, round, distribution, workers, runs));
      }
    }
    const measurements: Measurement[] = [];
    const series = (distribution: Distribution, workers: number, pick: (s: Sample) => number) => (samples.get(key(distribution, workers)) ?? []).map(pick);
    for (const distribution of DISTRIBUTIONS) {
      for (const workers of ESDB_WORKER_COUNTS) {
        const variant = { distribution, workers, concurrency: ESDB_WORKER_CONCURRENCY, runs };
        const of = (pick: (s: Sample) => number) => series(distribution, workers, pick);
        measurements.push(
          { subject: 'product', variant, metric: 'tool steps/s', unit: 'steps/s', better: 'higher', samples: of((s) => s.stepsPerSecond) },
          { subject: 'product', variant, metric: 'claim conflicts per run', unit: 'conflicts', better: 'lower', samples: of((s) => s.conflictsPerRun) },
          { subject: 'product', variant, metric: 'claim conflicts per won claim', unit: 'conflicts', better: 'lower', samples: of((s) => s.conflictsPerClaim) },
          { subject: 'product', variant, metric: 'time to settle every run', unit: 's', better: 'lower', samples: of((s) => s.seconds) },
        );
        for (const part of CPU_PARTS) {
          const cpu = (samples.get(key(distribution, workers)) ?? []).map((s) => s.cpuPerStep[part]);
          if (cpu.every((ms): ms is number => ms !== null)) measurements.push({ subject: 'product', variant, metric: `CPU per tool step: ${part}`, unit: 'ms', better: 'lower', samples: cpu });
        }
      }
    }
    const ratios: Ratio[] = DISTRIBUTIONS.flatMap((distribution) =>
      ESDB_WORKER_COUNTS.filter((n) => n > 1).map((workers) => ({
        name: `${distribution}: ${workers} workers / 1 worker steps/s`,
        variant: { distribution, workers },
        samples: ratioSamples(series(distribution, workers, (s) => s.stepsPerSecond), series(distribution, 1, (s) => s.stepsPerSecond)),
      })),
    );
    const failed = [...samples.values()].flat().reduce((sum, s) => sum + s.failedRuns, 0);
    const claimsPerRun = DISTRIBUTIONS.flatMap((d) => ESDB_WORKER_COUNTS.map((n) => `${d} ${n}: ${median(series(d, n, (s) => s.claimsPerRun)).toFixed(2)}`)).join(', ');
    return {
      measurements,
      ratios,
      targets: [],
      notes: [
        `${runs} queued runs of ${ESDB_STEPS_PER_RUN} clock.now steps each per configuration, submitted over HTTP to one API process (WORKER_CONCURRENCY=0), ` +
          `worker processes with --concurrency ${ESDB_WORKER_CONCURRENCY}, the test server in a process of its own; every process on this machine's cores.`,
        `processes from ${process.env.CI === 'true' ? 'the build (CI=true)' : 'the sources through ts-node (set CI=true to run the build)'}; environment: test/multiproc/support/cluster-env.ts.`,
        `won claims per run (median; 1 = no requeue): ${claimsPerRun}; runs that did not complete: ${failed}.`,
        'The absolute figures mean little (an in-memory test server in Node.js on the same cores); compare the shape across the worker counts.',
      ],
    };
  },
};
