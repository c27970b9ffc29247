/**
 * One scenario of the multi-process EventStoreDB tier: the test server as a
 * process, one API process and worker processes on it (`esdb-cluster.ts`),
 * queued runs of every kind submitted over HTTP (reads, idempotent and
 * non-idempotent writes, a model that fails once and is retried, approvals
 * granted or denied by an operator), worker processes killed with SIGKILL at
 * random moments (a replacement started in the slot) and/or a worker added
 * and one removed gracefully; then every run must settle, and the crash
 * suite's checks run (`test/crash/support/checks.ts`). The claim conflicts
 * per run come from the server's count of refused appends.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StandaloneStats } from '../../support/esdb-server';
import { checkSettledScenario, waitUntilSettled } from '../../crash/support/checks';
import type { History, StoreFiles } from '../../crash/support/history';
import type { HistoryFigures, Violation } from '../../crash/support/invariants';
import type { ProcessExit } from '../../crash/support/processes';
import { formatViolations } from '../../crash/support/report';
import { Rng } from '../../crash/support/rng';
import { CRASH_RUNTIME_ENV } from '../../crash/support/scenario';
import type { OperatorDecision } from '../../crash/support/workload';
import { approveWhatWaits, crashAgentsYaml, planRuns, submitRun } from '../../crash/support/workload';
import type { ClaimConflictFigures } from './claim-conflicts';
import { claimConflictFigures, formatClaimConflicts } from './claim-conflicts';
import { EsdbCluster } from './esdb-cluster';
import type { FlakyModelServer } from './flaky-model-server';
import { startFlakyModelServer } from './flaky-model-server';
import { scaled } from '../../support/time-scale';

/** What a scenario does. */
export interface EsdbScenarioSpec {
  readonly name: string;
  readonly seed: number;
  /** Queued runs submitted over HTTP. */
  readonly runs: number;
  /** Worker processes at the start. */
  readonly workers: number;
  /** SIGKILLs of a random running worker (each replaced in its slot after a short delay). */
  readonly randomKills: number;
  /** Add a worker once this share of the runs was submitted (0 to 1), or null. */
  readonly addWorkerAt: number | null;
  /** Stop `worker-1` with SIGTERM (for good) once this share of the runs was submitted, or null. */
  readonly removeWorkerAt: number | null;
  /** `AUDIT_GAP_GRACE_MS` of the saga (in the API process). */
  readonly auditGapGraceMs: number;
  readonly settleTimeoutMs: number;
}

/** What a scenario did and found. */
export interface EsdbScenarioReport {
  readonly spec: EsdbScenarioSpec;
  readonly wallMs: number;
  /** From the end of the workload (every submission answered, every planned kill done) until every run settled. */
  readonly settleMs: number;
  readonly unsettled: readonly string[];
  readonly exits: readonly ProcessExit[];
  readonly figures: HistoryFigures | null;
  readonly claimConflicts: ClaimConflictFigures | null;
  /** Approvals the operator granted / denied; model calls refused once by the flaky model. */
  readonly operator: { readonly decided: number; readonly denied: number };
  readonly flakyRefusals: number;
  /** Workers added and removed (SIGTERM, for good) during the workload. */
  readonly scaling: { readonly added: readonly string[]; readonly removed: readonly string[] };
  /** Worker slots ever in the cluster: the most worker processes alive at once (a slot runs one incarnation at a time). */
  readonly workerSlots: number;
  /** Won claims (`RunClaimed`) by the process that made them (worker slot, all its incarnations). */
  readonly claimsByProcess: Readonly<Record<string, number>>;
  readonly violations: readonly Violation[];
  readonly harnessErrors: readonly string[];
  readonly dir: string;
}

/** The agents: the crash scenarios' (ledger tools of every effect class), and `flaky`, whose model fails its first call. */
export function esdbAgentsYaml(flakyModelBaseUrl: string): string {
  return `${crashAgentsYaml()}  - name: flaky
    instructions: Put once the model answers.
    tools: [ledger.read, ledger.put]
    approvals: { preApproved: [ledger.put] }
    maxIterations: 4
    provider: { type: openai, baseUrl: ${flakyModelBaseUrl}, model: flaky, timeoutSeconds: 30 }
`;
}

/** The queued runs cycle through these agents. */
const AGENTS = ['mixer', 'batcher', 'reader', 'approver', 'flaky', 'mixer', 'batcher', 'approver'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a scenario to its end; never throws (a harness problem is reported as such). */
export async function runEsdbScenario(spec: EsdbScenarioSpec, options: { readonly keepDir?: boolean } = {}): Promise<{ report: EsdbScenarioReport; failure: string }> {
  const startedAt = Date.now();
  const dir = mkdtempSync(join(tmpdir(), `agent-ledger-multiproc-${spec.name.replace(/[^A-Za-z0-9]/g, '')}-`));
  const rng = new Rng(spec.seed);
  const chaosRng = rng.fork(1);
  const workloadRng = rng.fork(2);
  const submitted = planRuns(spec.name, workloadRng, spec.runs, 0, AGENTS);
  const approverRuns = submitted.filter((r) => r.agent === 'approver').map((r) => r.runId);
  const denied = new Set(approverRuns.filter((_, i) => i % 3 === 2));
  const ledgerPath = join(dir, 'ledger.jsonl');

  let phase: 'workload' | 'settle' | 'stopping' = 'workload';
  const exits: ProcessExit[] = [];
  const harnessErrors: string[] = [];
  const violations: Violation[] = [];
  const restarts = new Set<Promise<void>>();
  let cluster: EsdbCluster | null = null;
  let model: FlakyModelServer | null = null;
  let history: History | null = null;
  let figures: HistoryFigures | null = null;
  let conflicts: ClaimConflictFigures | null = null;
  let settleMs = 0;
  let unsettled: string[] = [];
  const operatorFigures = { decided: 0, denied: 0 };
  const scaling = { added: [] as string[], removed: [] as string[] };

  const stopping = () => phase === 'stopping';
  const onExit = (exit: ProcessExit) => {
    exits.push(exit);
    if (stopping()) return;
    if (exit.cause === 'unexpected' || exit.cause === 'point') harnessErrors.push(`${exit.process}#${exit.incarnation} ended on its own (code ${exit.code}, signal ${exit.signal}):\n${exit.tail}`);
    if (exit.cause !== 'external') return; // a worker removed with SIGTERM stays removed
    const restart = (async () => {
      await sleep(chaosRng.int(100, 800));
      const slot = cluster?.workers.find((w) => w.name === exit.process);
      if (!stopping() && slot !== undefined && !slot.isRunning()) slot.start(null);
    })();
    restarts.add(restart);
    void restart.finally(() => restarts.delete(restart));
  };

  try {
    model = await startFlakyModelServer();
    const agentsPath = join(dir, 'agents.yaml');
    writeFileSync(agentsPath, esdbAgentsYaml(model.baseUrl));
    cluster = await EsdbCluster.start({
      dir,
      agentsPath,
      workers: spec.workers,
      workerConcurrency: 2,
      // The crash scenarios' short leases and fast reaper: a killed worker's run is taken back within seconds.
      env: { ...CRASH_RUNTIME_ENV, AGENT_LEDGER_TEST_LEDGER: ledgerPath, AUDIT_GAP_GRACE_MS: String(spec.auditGapGraceMs) },
      onExit,
    });
    const running = cluster;
    await running.waitUntilUp();
    const access = { baseUrl: () => running.baseUrl() };
    const files: StoreFiles & { dataDir: string } = { runStore: running.esdb.connectionString, auditStorePath: null, ledgerPath, dataDir: running.apiDataDir };

    const stopOperator = new AbortController();
    const decide = (runId: string): OperatorDecision => {
      if (!denied.has(runId)) return 'approve';
      operatorFigures.denied += 1;
      return 'deny';
    };
    const operator = approveWhatWaits(access, stopOperator.signal, 300, decide);

    // The workload: four lanes of submissions; the chaos: random SIGKILLs of a worker meanwhile.
    let answered = 0;
    const share = () => answered / submitted.length;
    const submitDeadline = Date.now() + scaled(300_000);
    // While a worker is being added, the lanes wait for it to be up, so that it joins while most runs are still to come.
    let joining: Promise<void> = Promise.resolve();
    const lanes = [0, 1, 2, 3].map((lane) =>
      (async () => {
        for (const run of submitted.filter((_, i) => i % 4 === lane)) {
          await joining;
          await submitRun(access, run, submitDeadline);
          answered += 1;
          await sleep(workloadRng.int(20, 250));
        }
      })(),
    );
    const chaos = (async () => {
      for (let kills = 0; kills < spec.randomKills; ) {
        await sleep(chaosRng.int(800, 2500));
        const candidates = running.workers.filter((w) => w.isUp());
        if (candidates.length === 0) continue;
        kills += 1;
        await chaosRng.pick(candidates).kill();
      }
    })();
    const scaler = (async () => {
      const waitForShare = async (at: number) => {
        while (share() < at && answered < submitted.length) await sleep(100);
      };
      if (spec.addWorkerAt !== null) {
        await waitForShare(spec.addWorkerAt);
        scaling.added.push(running.addWorker().name);
        joining = running.waitUntilUp();
        await joining;
      }
      const removed = running.workers[0];
      if (spec.removeWorkerAt !== null && removed !== undefined) {
        await waitForShare(spec.removeWorkerAt);
        scaling.removed.push(removed.name);
        await removed.stop();
      }
    })();
    for (const outcome of await Promise.allSettled([...lanes, chaos, scaler])) if (outcome.status === 'rejected') harnessErrors.push(String(outcome.reason));

    // Settle: no more kills; every process still in the cluster must be up, then every run must reach a terminal status.
    phase = 'settle';
    await Promise.all([...restarts]);
    await running.waitUntilUp();
    const settled = await waitUntilSettled(files, submitted.map((r) => r.runId), spec.settleTimeoutMs);
    settleMs = settled.settleMs;
    unsettled = settled.unsettled;
    stopOperator.abort();
    operatorFigures.decided = await operator;
    const gone = [running.api, ...running.workers].filter((p) => !p.isUp() && !exits.some((e) => e.process === p.name && e.cause === 'stopped'));
    if (gone.length > 0) harnessErrors.push(`a process died during the settle phase: ${gone.map((p) => p.name).join(', ')}`);
    const stats: StandaloneStats = await running.esdb.stats();

    const checked = await checkSettledScenario({
      files,
      submitted,
      baseUrl: access.baseUrl,
      env: running.apiEnv,
      stopProcesses: async () => {
        phase = 'stopping';
        await running.stopProcesses();
      },
    });
    history = checked.history;
    figures = checked.figures;
    violations.push(...checked.violations);
    conflicts = claimConflictFigures(stats.appendConflicts, submitted.map((r) => r.runId), history);
  } catch (error) {
    harnessErrors.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    phase = 'stopping';
    await Promise.all([...restarts]);
    await cluster?.close().catch((error: unknown) => harnessErrors.push(`closing the cluster: ${String(error)}`));
    await model?.close();
  }
  const report: EsdbScenarioReport = {
    spec,
    wallMs: Date.now() - startedAt,
    settleMs,
    unsettled,
    exits,
    figures,
    claimConflicts: conflicts,
    operator: operatorFigures,
    flakyRefusals: model?.refused() ?? 0,
    scaling,
    workerSlots: cluster?.workers.length ?? 0,
    claimsByProcess: history === null ? {} : claimsByProcess(history, exits),
    violations,
    harnessErrors,
    dir,
  };
  const failed = violations.length > 0 || harnessErrors.length > 0;
  if (!failed && options.keepDir !== true) rmSync(dir, { recursive: true, force: true });
  const failure = failed
    ? formatViolations(
        { name: spec.name, label: spec.name, seed: spec.seed, point: null, violations, harnessErrors, exits, dir },
        history,
        `MULTIPROC_SEED=${spec.seed} CI=true npx jest test/multiproc -t '${spec.name}'`,
      )
    : '';
  return { report, failure };
}

/** Won claims by process name, from the owners of the `RunClaimed` events (`kind:host:pid:tag`) and the pids of every incarnation. */
function claimsByProcess(history: History, exits: readonly ProcessExit[]): Record<string, number> {
  const nameOfPid = new Map(exits.map((e) => [String(e.pid), e.process]));
  const claims: Record<string, number> = {};
  for (const events of history.runs.values()) {
    for (const e of events) {
      if (e.type !== 'RunClaimed') continue;
      const pid = String(e.data['owner']).split(':')[2] ?? '?';
      const name = nameOfPid.get(pid) ?? `pid ${pid}`;
      claims[name] = (claims[name] ?? 0) + 1;
    }
  }
  return claims;
}

/** The scenario's figures, for the test's output. */
export function summariseEsdbScenario(report: EsdbScenarioReport): string {
  const f = report.figures;
  const kills = report.exits.filter((e) => e.cause === 'external').length;
  const executions = f === null ? '-' : Object.entries(f.executions).map(([tool, n]) => `${tool} ${n}`).join(', ');
  return [
    `${report.spec.name} (seed ${report.spec.seed}): ${(report.wallMs / 1000).toFixed(1)} s, settled ${(report.settleMs / 1000).toFixed(1)} s after the workload; ${report.spec.runs} runs, ${report.spec.workers} workers at the start`,
    `  processes: ${kills} SIGKILLs of a worker (each replaced), added ${JSON.stringify(report.scaling.added)}, removed ${JSON.stringify(report.scaling.removed)}; claims by process ${JSON.stringify(report.claimsByProcess)}`,
    `  outcomes: ${JSON.stringify(f?.byOutcome ?? {})}`,
    `  executions: ${executions}; steps re-executed ${JSON.stringify(f?.reExecutedSteps ?? {})}; claims ${f?.claims ?? '-'}, requeued after a lost lease ${f?.requeuedLeaseExpired ?? '-'}, audit gaps ${f?.auditGaps ?? '-'}, audits recorded by a retry ${f?.auditsRecordedByRetry ?? '-'}`,
    `  operator: ${report.operator.decided} approvals decided (${report.operator.denied} denied); flaky model: ${report.flakyRefusals} first calls refused with 503`,
    `  ${report.claimConflicts === null ? 'claim conflicts: not measured' : formatClaimConflicts(report.claimConflicts)}`,
    `  violations: ${report.violations.length}, harness errors: ${report.harnessErrors.length}`,
  ].join('\n');
}
