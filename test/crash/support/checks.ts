/**
 * The end of a scenario, shared by the crash scenarios (embedded store) and
 * the multi-process EventStoreDB tier (test/multiproc): wait until every run
 * reached a terminal status, then check every invariant from the stores, the
 * read models and the ledger.
 */
import type { History, StoreFiles } from './history';
import { readHistory } from './history';
import type { HistoryFigures, SubmittedRun, Violation } from './invariants';
import { checkInvariants } from './invariants';
import type { McpFigures } from './mcp-workload';
import { checkMcpWrites, readMcpKills } from './mcp-workload';
import { runCli } from './processes';
import { compareReadModelsOverHttp, compareRebuild } from './read-models';
import { scaled } from '../../support/time-scale';

const TERMINAL = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls the stores (every second) until each of `runIds` has a terminal event
 * (an interactive run whose caller died before claiming it is settled too:
 * the reaper fails it a lease after its request), or `timeoutMs` (scaled)
 * passed. Returns the runs still unsettled and how long it waited.
 */
export async function waitUntilSettled(files: StoreFiles, runIds: readonly string[], timeoutMs: number): Promise<{ unsettled: string[]; settleMs: number }> {
  const started = Date.now();
  let unsettled = [...runIds];
  while (Date.now() - started < scaled(timeoutMs)) {
    const now = await readHistory(files);
    unsettled = runIds.filter((id) => !(now.runs.get(id) ?? []).some((e) => TERMINAL.has(e.type)));
    if (unsettled.length === 0) break;
    await sleep(1000);
  }
  return { unsettled, settleMs: Date.now() - started };
}

/** What {@link checkSettledScenario} needs. */
export interface SettledScenario {
  readonly files: StoreFiles & { readonly dataDir: string };
  readonly submitted: readonly SubmittedRun[];
  /** The service's base URL (it must be up until `stopProcesses`). */
  readonly baseUrl: () => Promise<string>;
  /** The environment of the CLI verbs (`projections rebuild`, `audit verify`): the service's. */
  readonly env: Readonly<Record<string, string>>;
  /** Stops every process of the scenario, once the checks over HTTP are done (the rebuild needs them stopped). */
  readonly stopProcesses: () => Promise<void>;
}

/**
 * The checks of a settled scenario: invariants 1 to 7 from the stores and the
 * ledger (`invariants.ts`), 8 from the read models over HTTP, then, every
 * process stopped, the live read models against `projections rebuild`, and
 * `audit verify` (every hash chain intact).
 */
export async function checkSettledScenario(scenario: SettledScenario): Promise<{ history: History; figures: HistoryFigures & { mcp?: McpFigures }; violations: Violation[] }> {
  const { files, env } = scenario;
  const history = await readHistory(files);
  const checked = checkInvariants(history, scenario.submitted);
  const violations = [...checked.violations];
  // The MCP path's own checks, when the writes are MCP calls (mcp-workload.ts).
  let figures: HistoryFigures & { mcp?: McpFigures } = checked.figures;
  if (files.mcp !== undefined && history.mcp !== undefined) {
    const mcp = checkMcpWrites(history.mcp.executions, history.mcp.unreadable, readMcpKills(files.mcp), history.runs, scenario.submitted);
    violations.push(...mcp.violations);
    figures = { ...checked.figures, mcp: mcp.figures };
  }
  violations.push(...(await compareReadModelsOverHttp(scenario.baseUrl, () => readHistory(files), files)));
  await scenario.stopProcesses();
  const rebuild = await compareRebuild(files, env);
  violations.push(...rebuild.violations);
  const verify = await runCli(['audit', 'verify'], env);
  if (verify.code !== 0) violations.push({ invariant: 3, runId: null, message: `audit verify exited ${verify.code} (a broken audit chain): ${verify.output.slice(-1500)}` });
  return { history, figures, violations };
}
