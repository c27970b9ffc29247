/**
 * One crash scenario: the built service and extra `worker` processes on a
 * fresh data folder; a mixed workload of queued and interactive runs
 * submitted over HTTP; SIGKILLs at named crash points (armed through
 * `AGENT_LEDGER_CRASH_POINTS`) and/or at random moments (seeded); every
 * process started again after its death; then the settle phase (no more
 * crashes; every run must reach a terminal status before a deadline, with
 * short leases and a fast reaper, nothing advanced artificially) and the
 * checks of every guarantee of docs/guarantees.md.
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CrashPoint } from '@agent-ledger/crash-points';
import { CRASH_POINTS } from '@agent-ledger/crash-points';
import { checkSettledScenario, waitUntilSettled } from './checks';
import type { History, StoreFiles } from './history';
import { postgresLocation } from './history';
import type { Violation } from './invariants';
import type { Arming, ProcessExit } from './processes';
import { ManagedProcess } from './processes';
import type { ScenarioReport } from './report';
import { formatViolations } from './report';
import { Rng } from './rng';
import { approveWhatWaits, crashAgentsYaml, planRuns, submitRun } from './workload';
import { MCP_INTERACTIVE_AGENTS, MCP_QUEUED_AGENTS, McpClientKiller, mcpCrashAgentsYaml, mcpFilesIn } from './mcp-workload';
import { scaled } from '../../support/time-scale';

/** What a scenario does. */
export interface ScenarioSpec {
  /** The template's name (`point-afterWriteFence`, `random-kills`): `CRASH_ONLY` selects it. */
  readonly name: string;
  /** The test's title (the name, and its number in the long version). */
  readonly label: string;
  readonly seed: number;
  /** The named crash point armed in every process (`<point>@<n>`, n drawn from the seed), or null. */
  readonly point: CrashPoint | null;
  /** Arm every crash point in every process with this probability instead (the mixed scenarios); 0 for none. */
  readonly everyPointProbability: number;
  /** Most crashes at crash points in the scenario (each restart is armed again while fewer happened). */
  readonly pointCrashBudget: number;
  /** Random SIGKILLs of a random process by the harness, at most. */
  readonly randomKills: number;
  /** `worker` processes besides the service. */
  readonly workers: number;
  readonly queuedRuns: number;
  readonly interactiveRuns: number;
  /** `AUDIT_GAP_GRACE_MS`: short, the saga fails a run whose write lost its audit; long, the retry records the audit first. */
  readonly auditGapGraceMs: number;
  /** Keep the audit streams in a store file of their own (`AUDIT_STORE_PATH`). */
  readonly separateAuditStore: boolean;
  /** How long the settle phase may take. */
  readonly settleTimeoutMs: number;
  /**
   * The agents' tools: the `ledger.*` test tools (default), or the tools of an MCP server bound in the agents
   * file (`mcp-workload.ts`: every write an MCP call, the server's own count of its executions as the ledger).
   */
  readonly workload?: 'ledger' | 'mcp';
  /** With the MCP workload: how many times the server kills its client in the middle of a call (after executing it, before answering). */
  readonly mcpClientKills?: number;
}

/** The crash "point" of a client killed by its MCP server in the middle of a call (the harness's, not the product's). */
export const MCP_CLIENT_KILLED = 'mcpServerKilledClient';
/** The tools whose calls kill their client, in turn (`any`: the next write, whichever). */
const MCP_KILL_TOOLS = ['append', 'count', 'any'] as const;

/**
 * The lease and reaper settings of every scenario: a dead segment's run is taken back within seconds (a write's fence
 * still holds it for its deadline + 60 s). The service runs its workers itself (`WORKER_PROCESSES=0`): the scenarios
 * crash the process that executes the runs and account for each crash; worker processes killed under a running
 * service are test/e2e/worker-processes.e2e-spec.ts's.
 */
export const CRASH_RUNTIME_ENV = {
  LEASE_SECONDS: '4',
  REAPER_INTERVAL_MS: '500',
  BACKOFF_BASE_SECONDS: '1',
  BACKOFF_CAP_SECONDS: '2',
  WORKER_CONCURRENCY: '2',
  WORKER_PROCESSES: '0',
} as const;

/** How many times a named point is reached before it fires, at most, per process incarnation. */
const MAX_NTH: Record<CrashPoint, number> = {
  beforeWriteFence: 4,
  afterWriteFence: 4,
  duringToolCall: 5,
  afterToolReturned: 5,
  beforeAudit: 5,
  afterStepRecorded: 5,
  beforeSettle: 3,
  duringProjectionUpdate: 6,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The outcome of a scenario: its report, the history it checked, and the text to print when it failed. */
export interface ScenarioOutcome {
  readonly report: ScenarioReport;
  readonly history: History | null;
  /** Empty when the scenario passed. */
  readonly failure: string;
}

/** Where a scenario's processes keep their events, and what is kept of its folder. */
export interface ScenarioOptions {
  readonly keepDir?: boolean;
  /**
   * Run the processes on PostgreSQL (`POSTGRES_CONNECTION_STRING`) instead of
   * the embedded store, in a schema of the scenario's own on this server. Each
   * process then has a data folder of its own (read models, processors'
   * database), as on separate machines, and only the service runs the
   * audit-gap saga (the workers run with `--no-saga`).
   */
  readonly postgres?: { readonly connectionString: string };
}

/** The PostgreSQL schema of a scenario: its template and seed (a lower-case SQL identifier). */
export function scenarioSchema(spec: Pick<ScenarioSpec, 'name' | 'seed'>): string {
  return `crash_${spec.name.toLowerCase().replace(/[^a-z0-9]/g, '_').slice(0, 40)}_${spec.seed}`;
}

/** Runs one scenario to its end; never throws (a harness problem is reported as such). */
export async function runScenario(spec: ScenarioSpec, options: ScenarioOptions = {}): Promise<ScenarioOutcome> {
  const startedAt = Date.now();
  const dir = mkdtempSync(join(tmpdir(), `agent-ledger-crashtest-${spec.name.replace(/[^A-Za-z0-9]/g, '')}-`));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const agentsPath = join(dir, 'agents.yaml');
  const mcp = spec.workload === 'mcp' ? mcpFilesIn(dir) : null;
  writeFileSync(agentsPath, mcp === null ? crashAgentsYaml() : mcpCrashAgentsYaml(mcp));
  const postgres = options.postgres === undefined ? null : { connectionString: options.postgres.connectionString, schema: scenarioSchema(spec) };
  const files: StoreFiles & { dataDir: string } = {
    dataDir,
    runStore: postgres === null ? join(dataDir, 'agent-ledger.sqlite') : postgresLocation(postgres.connectionString, postgres.schema),
    auditStorePath: spec.separateAuditStore ? join(dataDir, 'audit.sqlite') : null,
    ledgerPath: join(dir, 'ledger.jsonl'),
    ...(mcp === null ? {} : { mcp }),
  };
  const env: Record<string, string> = {
    ...CRASH_RUNTIME_ENV,
    TS_NODE_TRANSPILE_ONLY: '1',
    TS_NODE_PROJECT: 'tsconfig.json',
    EVENTSTORE_CONNECTION_STRING: '',
    AGENT_LEDGER_DATA_DIR: dataDir,
    AGENTS_CONFIG: agentsPath,
    AGENT_LEDGER_TEST_LEDGER: files.ledgerPath,
    AUDIT_GAP_GRACE_MS: String(spec.auditGapGraceMs),
    PORT: '0',
    ...(files.auditStorePath === null ? {} : { AUDIT_STORE_PATH: files.auditStorePath }),
    // A small pool: several scenarios' processes share one server (max_connections 200).
    ...(postgres === null ? {} : { POSTGRES_CONNECTION_STRING: postgres.connectionString, POSTGRES_SCHEMA: postgres.schema, POSTGRES_POOL_SIZE: '4' }),
  };
  const log = createWriteStream(join(dir, 'processes.log'));
  const rng = new Rng(spec.seed);
  const armRng = rng.fork(1);
  const chaosRng = rng.fork(2);
  const workloadRng = rng.fork(3);

  let phase: 'workload' | 'settle' | 'stopping' = 'workload';
  const stopping = () => phase === 'stopping';
  const exits: ProcessExit[] = [];
  const crashes: Record<string, number> = {};
  const harnessErrors: string[] = [];
  const violations: Violation[] = [];
  let pointCrashes = 0;
  const killer = mcp === null ? null : new McpClientKiller(mcp);
  const mcpKillBudget = killer === null ? 0 : (spec.mcpClientKills ?? 0);
  let mcpKills = 0;
  const armMcpKill = () => {
    if (killer === null || phase !== 'workload' || mcpKills >= mcpKillBudget || killer.armed()) return;
    const tool = MCP_KILL_TOOLS[mcpKills % MCP_KILL_TOOLS.length] as (typeof MCP_KILL_TOOLS)[number];
    // A count of a queued run: its retry (another segment, maybe another process) sends it again with the same key.
    killer.arm(tool, tool === 'count' ? '-q[0-9]+/' : undefined);
  };
  let history: History | null = null;
  let figures: ScenarioReport['figures'] = null;
  let settleMs = 0;
  const answers: Record<string, number> = {};

  const arming = (): Arming | null => {
    if (phase !== 'workload' || pointCrashes >= spec.pointCrashBudget) return null;
    const seed = armRng.int(0, 2 ** 31 - 1);
    if (spec.point !== null) return { spec: `${spec.point}@${armRng.int(1, MAX_NTH[spec.point])}`, seed };
    if (spec.everyPointProbability > 0) return { spec: CRASH_POINTS.map((p) => `${p}:${spec.everyPointProbability}`).join(','), seed };
    return null;
  };
  const pending = new Set<Promise<void>>();
  const onExit = (exit: ProcessExit) => {
    exits.push(exit);
    if (exit.cause === 'point') {
      pointCrashes += 1;
      crashes[`point:${exit.point}`] = (crashes[`point:${exit.point}`] ?? 0) + 1;
    }
    if (exit.cause === 'external') crashes['external'] = (crashes['external'] ?? 0) + 1;
    if (exit.point === MCP_CLIENT_KILLED) {
      mcpKills += 1;
      armMcpKill();
    }
    if (exit.cause === 'unexpected') harnessErrors.push(`${exit.process}#${exit.incarnation} ended on its own (code ${exit.code}, signal ${exit.signal}):\n${exit.tail}`);
    if (stopping()) return;
    const restart = (async () => {
      await sleep(armRng.int(50, 600));
      if (stopping()) return;
      const owner = processes.find((p) => p.name === exit.process) as ManagedProcess;
      if (!owner.isRunning()) owner.start(arming());
    })();
    pending.add(restart);
    void restart.finally(() => pending.delete(restart));
  };
  const processes: ManagedProcess[] = [new ManagedProcess('serve', 'serve', env, log, startedAt, onExit)];
  for (let i = 1; i <= spec.workers; i += 1) {
    if (postgres === null) {
      processes.push(new ManagedProcess(`worker-${i}`, 'worker', env, log, startedAt, onExit, ['--concurrency', '2', ...(i > 1 ? ['--no-saga'] : [])]));
    } else {
      const workerDir = join(dir, `data-worker-${i}`);
      mkdirSync(workerDir, { recursive: true });
      processes.push(new ManagedProcess(`worker-${i}`, 'worker', { ...env, AGENT_LEDGER_DATA_DIR: workerDir }, log, startedAt, onExit, ['--concurrency', '2', '--no-saga']));
    }
  }
  const serve = processes[0] as ManagedProcess;
  if (killer !== null) {
    for (const p of processes) {
      p.explainDeath = (pid) => {
        const kill = killer.killOf(pid);
        return kill === null ? null : { point: MCP_CLIENT_KILLED, line: `MCP server pid ${kill.serverPid} killed its client (pid ${pid}) during ${kill.tool} for ${kill.key}, after executing it` };
      };
    }
  }
  const waitFor = async <T>(probe: () => T | null | false, what: string, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + scaled(timeoutMs);
    while (Date.now() < deadline) {
      const value = probe();
      if (value !== null && value !== false) return value as T;
      await sleep(50);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  };
  const access = { baseUrl: () => waitFor(() => serve.baseUrl(), 'the service to be up', 120_000) };
  const submitted = mcp === null ? planRuns(spec.name, workloadRng, spec.queuedRuns, spec.interactiveRuns) : planRuns(spec.name, workloadRng, spec.queuedRuns, spec.interactiveRuns, MCP_QUEUED_AGENTS, MCP_INTERACTIVE_AGENTS);

  try {
    for (const p of processes) p.start(arming());
    await access.baseUrl();
    armMcpKill();

    // The workload, with the operator approving what waits and, maybe, random SIGKILLs.
    const stopOperator = new AbortController();
    const operator = approveWhatWaits(access, stopOperator.signal);
    const chaos = (async () => {
      for (let kills = 0; kills < spec.randomKills && phase === 'workload'; ) {
        await sleep(chaosRng.int(300, 1500));
        if (phase !== 'workload') break;
        const victim = chaosRng.pick(processes);
        if (!victim.isRunning()) continue;
        kills += 1;
        await victim.kill();
      }
    })();
    const submitDeadline = Date.now() + scaled(180_000);
    const queued = submitted.filter((r) => r.mode === 'queued');
    const interactive = submitted.filter((r) => r.mode === 'interactive');
    const answer = (text: string) => {
      const key = text.replace(/^interactive /, 'interactive:');
      answers[key] = (answers[key] ?? 0) + 1;
    };
    const lanes = [
      (async () => {
        for (const run of queued) {
          answer(await submitRun(access, run, submitDeadline));
          await sleep(workloadRng.int(100, 700));
        }
      })(),
      ...[0, 1].map((lane) =>
        (async () => {
          for (const run of interactive.filter((_, i) => i % 2 === lane)) {
            answer(await submitRun(access, run, submitDeadline));
            await sleep(workloadRng.int(0, 250));
          }
        })(),
      ),
    ];
    const lanesDone = await Promise.allSettled(lanes);
    for (const lane of lanesDone) if (lane.status === 'rejected') harnessErrors.push(String(lane.reason));
    // Let the workers take the last runs while the crash points are still armed.
    await sleep(4000);

    // Settle: no more crashes. Armed processes still alive are restarted unarmed, then every run must reach a terminal status.
    phase = 'settle';
    killer?.disarm();
    await chaos;
    for (const p of processes) if (p.arming() !== null) await p.stop();
    await waitFor(() => pending.size === 0 && processes.every((p) => p.isUp()), 'every process to be up again', 120_000);
    settleMs = (await waitUntilSettled(files, submitted.map((r) => r.runId), spec.settleTimeoutMs)).settleMs;
    stopOperator.abort();
    await operator;
    if (processes.some((p) => !p.isUp())) harnessErrors.push(`a process died during the settle phase: ${processes.filter((p) => !p.isUp()).map((p) => p.name).join(', ')}`);

    // The checks: invariants 1-7 from the stores and the ledger, 8 from the read models.
    const checked = await checkSettledScenario({
      files,
      submitted,
      baseUrl: access.baseUrl,
      env,
      stopProcesses: async () => {
        phase = 'stopping';
        for (const p of processes) await p.stop();
        await Promise.all([...pending]);
      },
    });
    history = checked.history;
    figures = checked.figures;
    violations.push(...checked.violations);
  } catch (error) {
    harnessErrors.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    phase = 'stopping';
    for (const p of processes) await p.kill().catch(() => undefined);
    await Promise.all([...pending]);
    await new Promise<void>((resolve) => log.end(resolve));
  }
  if (spec.point !== null && (crashes[`point:${spec.point}`] ?? 0) === 0) harnessErrors.push(`no crash happened at ${spec.point}: the scenario proved nothing`);
  if (mcpKillBudget > 0 && mcpKills === 0) harnessErrors.push('no MCP server killed its client in the middle of a call: the scenario proved nothing');
  const report: ScenarioReport = {
    name: spec.name,
    label: spec.label,
    seed: spec.seed,
    point: spec.point ?? (spec.everyPointProbability > 0 ? `every point at p=${spec.everyPointProbability}` : null),
    wallMs: Date.now() - startedAt,
    settleMs,
    submitted: { queued: spec.queuedRuns, interactive: spec.interactiveRuns },
    answers,
    crashes,
    exits,
    figures,
    violations,
    harnessErrors,
    dir,
  };
  const failed = violations.length > 0 || harnessErrors.length > 0;
  if (!failed && options.keepDir !== true) rmSync(dir, { recursive: true, force: true });
  const reproduce = `CRASH_ONLY=${spec.name} CRASH_SEED=${spec.seed} CI=true npx jest test/crash/${mcp === null ? 'crash-scenarios' : 'mcp-writes'}${options.postgres === undefined ? '' : '-postgres'}`;
  return { report, history, failure: failed ? formatViolations(report, history, reproduce) : '' };
}
