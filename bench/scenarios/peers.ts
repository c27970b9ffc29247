import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import { agentLedgerRound } from './peers/agent-ledger-round';
import { WorkerChild } from './steps/product-round';
import { dbosRound, findDbos } from './peers/dbos-round';
import { PEER_NOT_INSTALLED } from './peers/peer-packages';
import type { BenchCluster } from '../support/postgres-cluster';
import { postgresMissing, startBenchCluster } from '../support/postgres-cluster';
import { findRestate, RestateServer, restateRound } from './peers/restate-round';
import type { PeerWorkload, SubjectRoundResult } from './peers/workload';
import { STEPS_PER_RUN } from './peers/workload';
import { DEFAULT_PEER_DIRECTORY } from './store/peer-store';

/**
 * Peers: agent-ledger against DBOS and Restate on the same workflow shape,
 * in one run (issue 27, §5): runs of K = 10 no-op durable steps, C = 1, 8
 * and 64 runs in flight, each system at its durable default with fsync on.
 * agent-ledger on its embedded store (`powerLoss`: fsync at every commit)
 * and on PostgreSQL; DBOS (`@dbos-inc/dbos-sdk`) on the same private
 * PostgreSQL cluster; Restate (`restate-server` and `@restatedev/restate-sdk`
 * from npm). The peers are packages of `bench/peer`, never imported by the
 * product; a peer that cannot be installed or started is skipped with a
 * note, and agent-ledger is measured all the same. Method and figures:
 * docs/benchmarks.md.
 */

export { PEER_NOT_INSTALLED };

/** The systems of the scenario, as the ratios and notes name them. */
export type PeersSubject = 'agent-ledger' | 'agent-ledger, worker process' | 'agent-ledger on PostgreSQL' | 'DBOS' | 'Restate';

/** The name of a ratio of steps/s at C runs in flight (kept exactly: the chart's targets and docs/benchmarks.md refer to them). */
export function peersRatioName(numerator: PeersSubject, denominator: PeersSubject, runs: number): string {
  return `${numerator}/${denominator} steps/s (C=${runs})`;
}

/** Issue 27's targets, all with fsync on, as ratios measured in one run. */
const RATIO_TARGETS: ReadonlyArray<{ readonly runs: number; readonly numerator: PeersSubject; readonly denominator: PeersSubject; readonly minimum: number }> = [
  { runs: 1, numerator: 'agent-ledger', denominator: 'DBOS', minimum: 1.5 },
  { runs: 8, numerator: 'agent-ledger', denominator: 'DBOS', minimum: 2 },
  { runs: 64, numerator: 'agent-ledger', denominator: 'Restate', minimum: 2.5 },
  { runs: 64, numerator: 'agent-ledger', denominator: 'DBOS', minimum: 4 },
  { runs: 1, numerator: 'agent-ledger on PostgreSQL', denominator: 'DBOS', minimum: 1 },
  { runs: 8, numerator: 'agent-ledger on PostgreSQL', denominator: 'DBOS', minimum: 1.5 },
  { runs: 64, numerator: 'agent-ledger on PostgreSQL', denominator: 'DBOS', minimum: 1.5 },
  // The same targets for the service's default layout on a machine of several cores (WORKER_PROCESSES=auto).
  { runs: 1, numerator: 'agent-ledger, worker process', denominator: 'DBOS', minimum: 1.5 },
  { runs: 8, numerator: 'agent-ledger, worker process', denominator: 'DBOS', minimum: 2 },
  { runs: 64, numerator: 'agent-ledger, worker process', denominator: 'Restate', minimum: 2.5 },
  { runs: 64, numerator: 'agent-ledger, worker process', denominator: 'DBOS', minimum: 4 },
];

/** The ratios the scenario reports, numerator over denominator (those of a target and the others at every C). */
const RATIOS: ReadonlyArray<readonly [PeersSubject, PeersSubject]> = [
  ['agent-ledger', 'DBOS'],
  ['agent-ledger', 'Restate'],
  ['agent-ledger, worker process', 'DBOS'],
  ['agent-ledger, worker process', 'Restate'],
  ['agent-ledger on PostgreSQL', 'DBOS'],
];

/** agent-ledger's p99 step latency at C = 64 (embedded store, fsync on). */
const P99_TARGET_MS = 20;

/** The target ratios of the scenario, by ratio name, for the chart. */
export const PEERS_TARGET_RATIOS: Readonly<Record<string, number>> = Object.fromEntries(
  RATIO_TARGETS.map((t) => [peersRatioName(t.numerator, t.denominator, t.runs), t.minimum]),
);

/** Options of {@link createPeersScenario}. */
export interface PeersScenarioOptions {
  /** Where the peers' package.json and node_modules are (default `bench/peer`); the tests point it at an empty folder. */
  readonly peerDirectory?: string;
  /** C, the runs in flight (default 1, 8 and 64; 1 and 8 at the quick size). */
  readonly concurrencies?: readonly number[];
}

/** The peers scenario, with the peers looked for in `options.peerDirectory`. */
export function createPeersScenario(options: PeersScenarioOptions = {}): BenchScenario {
  return {
    name: 'peers',
    title: 'Peers: agent-ledger against DBOS and Restate, K no-op durable steps per run, fsync on',
    run: (context) => runPeersScenario(context, options.peerDirectory ?? DEFAULT_PEER_DIRECTORY, options.concurrencies),
  };
}

/** Peers: agent-ledger against DBOS and Restate (peers in `bench/peer`). */
export const peersScenario: BenchScenario = createPeersScenario();

/** One round of a subject, with what its process read of its settings. */
type SubjectRound = (workload: PeerWorkload, label: string) => Promise<{ readonly result: SubjectRoundResult; readonly details: readonly string[] }>;

interface Subject {
  readonly name: PeersSubject;
  readonly kind: 'product' | 'peer';
  readonly variant: Readonly<Record<string, string>>;
  /** Why it is not measured (from the start, or from a failed round on). */
  skipped: string | null;
  readonly round: SubjectRound;
  /** The settings its first round read (added to the notes once). */
  details: readonly string[] | null;
}

/** The runs of a round at C runs in flight: about 2,000 steps (400 one run at a time), a multiple of C. */
function workloadOf(runs: number, quick: boolean): PeerWorkload {
  const steps = quick ? (runs === 1 ? 30 : 160) : runs === 1 ? 400 : 2000;
  return { runs, totalRuns: runs * Math.ceil(steps / (runs * STEPS_PER_RUN)), stepsPerRun: STEPS_PER_RUN, warmupRuns: quick ? 1 : 16 };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

async function runPeersScenario(context: BenchContext, peerDirectory: string, chosen: readonly number[] | undefined): Promise<ScenarioResult> {
  const concurrencies = chosen ?? (context.quick ? [1, 8] : [1, 8, 64]);
  const timeoutMs = context.quick ? 120_000 : 600_000;
  const notes: string[] = [];
  const skipNote = (subject: PeersSubject, reason: string) => {
    const note = `${subject}: not measured: ${reason}`;
    notes.push(note);
    context.log(note);
  };

  const noPostgres = postgresMissing();
  const dbos = findDbos(peerDirectory);
  const restate = findRestate(peerDirectory);
  let restateSettings: string | null = null;
  let restateProblem: string | null = null;
  if (restate.installed) {
    try {
      restateSettings = await RestateServer.describe(restate.binary, context.tempDir('restate-settings'));
    } catch (error) {
      restateProblem = `restate-server does not run here: ${messageOf(error)}`;
    }
  }

  let cluster: BenchCluster | null = null;
  if (noPostgres === null) cluster = await startBenchCluster();
  const subjects: Subject[] = [];
  // The second process of the worker-process layout, kept up across rounds (started at its first round).
  const second: { child: WorkerChild | null } = { child: null };
  try {
    subjects.push({
      name: 'agent-ledger',
      kind: 'product',
      variant: { system: 'agent-ledger', store: 'embedded', durability: 'powerLoss' },
      skipped: null,
      details: null,
      round: async (workload) => ({ result: await agentLedgerRound({ dir: context.tempDir('agent-ledger'), store: { kind: 'embedded' }, workload }), details: [] }),
    });
    subjects.push({
      name: 'agent-ledger, worker process',
      kind: 'product',
      variant: { system: 'agent-ledger', store: 'embedded', durability: 'powerLoss', layout: 'worker process' },
      skipped: null,
      details: null,
      round: async (workload) => {
        second.child ??= new WorkerChild('process');
        return { result: await agentLedgerRound({ dir: context.tempDir('agent-ledger-wp'), store: { kind: 'embedded' }, workload, worker: second.child }), details: [] };
      },
    });
    const postgres = cluster;
    subjects.push({
      name: 'agent-ledger on PostgreSQL',
      kind: 'product',
      variant: { system: 'agent-ledger', store: 'postgres' },
      skipped: postgres === null ? `no PostgreSQL cluster: ${noPostgres}` : null,
      details: null,
      round: async (workload, label) => {
        if (postgres === null) throw new Error('no cluster');
        const store = { kind: 'postgres' as const, connectionString: postgres.server.connectionString, schema: `agent_ledger_${label}` };
        return { result: await agentLedgerRound({ dir: context.tempDir('agent-ledger-pg'), store, workload }), details: [] };
      },
    });
    subjects.push({
      name: 'DBOS',
      kind: 'peer',
      variant: { system: 'DBOS', store: 'postgres' },
      skipped: !dbos.installed ? dbos.reason : postgres === null ? `no PostgreSQL cluster for its system database: ${noPostgres}` : null,
      details: null,
      round: async (workload, label) => {
        if (postgres === null) throw new Error('no cluster');
        return dbosRound({ peerDirectory, systemDatabaseUrl: postgres.databaseUrl(`dbos_${label}`), workload, timeoutMs });
      },
    });
    subjects.push({
      name: 'Restate',
      kind: 'peer',
      variant: { system: 'Restate' },
      skipped: !restate.installed ? restate.reason : restateProblem,
      details: null,
      round: async (workload) => {
        if (!restate.installed) throw new Error('not installed');
        return restateRound({ peerDirectory, binary: restate.binary, dir: context.tempDir('restate'), workload, timeoutMs });
      },
    });
    for (const subject of subjects) if (subject.skipped !== null) skipNote(subject.name, subject.skipped);

    if (!context.quick) {
      // The bench process compiles the product's code once before the first timed round, as each peer's process does in its warm-up runs.
      await agentLedgerRound({ dir: context.tempDir('warmup'), store: { kind: 'embedded' }, workload: { runs: 8, totalRuns: 16, stepsPerRun: STEPS_PER_RUN, warmupRuns: 0 } });
    }

    const measurements: Measurement[] = [];
    const ratios: Ratio[] = [];
    const targets: TargetCheck[] = [];
    for (const runs of concurrencies) {
      const workload = workloadOf(runs, context.quick);
      const samples = new Map<PeersSubject, { steps: number[]; p50: number[]; p99: number[] }>();
      for (let round = 0; round < context.rounds; round++) {
        for (const subject of subjects) {
          if (subject.skipped !== null) continue;
          const label = `c${runs}_r${round + 1}`;
          let outcome: Awaited<ReturnType<SubjectRound>>;
          try {
            outcome = await subject.round(workload, label);
          } catch (error) {
            // agent-ledger's failure is the scenario's; a peer's leaves it out of the rest of the run.
            if (subject.kind === 'product') throw error;
            subject.skipped = `its round at C=${runs} (round ${round + 1}) failed, left out from there on: ${messageOf(error)}`;
            skipNote(subject.name, subject.skipped);
            continue;
          }
          const { result } = outcome;
          if (subject.details === null) {
            subject.details = outcome.details;
            if (outcome.details.length > 0) notes.push(`${subject.name}, as its process read them: ${outcome.details.join('; ')}`);
          }
          const s = samples.get(subject.name) ?? { steps: [], p50: [], p99: [] };
          s.steps.push(result.stepsPerSecond);
          s.p50.push(result.p50Ms);
          s.p99.push(result.p99Ms);
          samples.set(subject.name, s);
          context.log(`C=${runs} round ${round + 1}: ${subject.name} ${formatNumber(result.stepsPerSecond)} steps/s (p50 ${formatNumber(result.p50Ms)} ms, p99 ${formatNumber(result.p99Ms)} ms)`);
        }
      }

      // A subject that missed a round at this C (it failed there) has no figure at this C.
      const complete = (name: PeersSubject) => {
        const s = samples.get(name);
        return s !== undefined && s.steps.length === context.rounds ? s : null;
      };
      for (const subject of subjects) {
        const s = complete(subject.name);
        if (s === null) continue;
        const variant = { ...subject.variant, runs };
        const m = (metric: string, unit: string, better: Measurement['better'], values: number[]) =>
          measurements.push({ subject: subject.kind, variant, metric, unit, better, samples: values });
        m('tool steps/s', 'steps/s', 'higher', s.steps);
        m('p50 step latency', 'ms', 'lower', s.p50);
        m('p99 step latency', 'ms', 'lower', s.p99);
      }
      for (const [numerator, denominator] of RATIOS) {
        const top = complete(numerator);
        const bottom = complete(denominator);
        if (top === null || bottom === null) continue;
        const values = ratioSamples(top.steps, bottom.steps);
        ratios.push({ name: peersRatioName(numerator, denominator, runs), variant: {}, samples: values });
        const target = RATIO_TARGETS.find((t) => t.runs === runs && t.numerator === numerator && t.denominator === denominator);
        if (target === undefined) continue;
        const ratio = median(values);
        const met = ratio >= target.minimum;
        const by = Math.abs(ratio / target.minimum - 1) * 100;
        targets.push({
          target: `C=${runs}, fsync on: ${numerator === 'agent-ledger' ? 'agent-ledger (embedded store)' : numerator === 'agent-ledger, worker process' ? 'agent-ledger (embedded store, a worker process)' : numerator} tool steps/s >= ${target.minimum}x ${denominator}'s`,
          measured: `${ratio.toFixed(2)}x (${formatNumber(median(top.steps))} vs ${formatNumber(median(bottom.steps))} steps/s), ${by.toFixed(0)}% ${met ? 'above' : 'below'} the target`,
          met,
        });
      }
      for (const [name, shown] of [['agent-ledger', 'agent-ledger (embedded store)'], ['agent-ledger, worker process', 'agent-ledger (embedded store, a worker process)']] as const) {
        const product = complete(name);
        if (runs !== 64 || product === null) continue;
        const p99 = median(product.p99);
        targets.push({ target: `C=64, fsync on: ${shown} p99 step latency < ${P99_TARGET_MS} ms`, measured: `${formatNumber(p99)} ms`, met: p99 < P99_TARGET_MS });
      }
    }

    notes.unshift(...settingsNotes(concurrencies, context.quick, cluster, dbos.installed ? dbos.version : null, restate.installed ? restate : null, restateSettings));
    return { measurements, ratios, targets, notes };
  } finally {
    second.child?.stop();
    await cluster?.server.stop();
  }
}

/** What each system ran with, and how the round is measured. */
function settingsNotes(
  concurrencies: readonly number[],
  quick: boolean,
  cluster: BenchCluster | null,
  dbosVersion: string | null,
  restate: { readonly sdkVersion: string; readonly serverVersion: string } | null,
  restateSettings: string | null,
): string[] {
  const sizes = concurrencies.map((runs) => {
    const w = workloadOf(runs, quick);
    return `C=${runs}: ${w.totalRuns} runs`;
  });
  const warmupRuns = workloadOf(1, quick).warmupRuns;
  return [
    `every system: runs (workflows) of ${STEPS_PER_RUN} no-op durable steps, C runs in flight until the round's total is done (${sizes.join(', ')}); ` +
      'steps/s = the round\'s steps over the time from its first run\'s start to its last run\'s end; step latency = from a run\'s start to its first step\'s durable end, then step to step',
    `agent-ledger: AgentLedgerModule in the bench process (workers = C, reaper, read models, audit-gap saga), each run one model round asking for ${STEPS_PER_RUN} calls of a no-op READ_ONLY tool then a final answer; ` +
      `latency from the stored audit times (ms); ${quick ? '' : 'one untimed round of 16 runs before the first; '}embedded store: WAL + synchronous=FULL (powerLoss: fsync at every commit), a fresh folder per round`,
    cluster === null
      ? 'PostgreSQL: no private cluster (see above)'
      : `PostgreSQL: one private cluster started by the bench on this machine (${cluster.settings}); agent-ledger on PostgresEventStore (group commit, pool of 16; the adapter sets synchronous_commit=on), a fresh schema per round; DBOS's system database a fresh database per round on the same cluster`,
    ...(dbosVersion === null
      ? []
      : [
          `DBOS: @dbos-inc/dbos-sdk ${dbosVersion}, its defaults (system database pool of 10, no synchronous_commit of its own, so the cluster's); each step DBOS.runStep of a no-op, checkpointed when it ends; ` +
            `C workflows called in the round's own Node process (forked per round, ${warmupRuns} warm-up run${warmupRuns === 1 ? '' : 's'} first); every workflow and step output read back from the system database after the round; latency by performance.now() in the workflow body`,
        ]),
    ...(restate === null
      ? []
      : [
          `Restate: @restatedev/restate-server ${restate.serverVersion}, @restatedev/restate-sdk ${restate.sdkVersion} (the newest that runs on Node 20); a fresh server per round, its defaults but for the ports, the data folder and telemetry off ` +
            `(${restateSettings ?? 'settings not read'}); a workflow of ${STEPS_PER_RUN} ctx.run no-op steps served by the SDK over HTTP/2 on a loopback port in the round's own Node process, registered with the admin API, ` +
            `each run invoked over the ingress HTTP API (POST /PeersRun/<key>/run, answered when the run has ended), ${warmupRuns} warm-up run${warmupRuns === 1 ? '' : 's'} first; latency by performance.now() in the workflow body`,
        ]),
  ];
}
