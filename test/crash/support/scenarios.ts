/**
 * The crash scenarios: one per named crash point, random SIGKILLs, and a mix
 * of both. `npm test` runs each template once (sized for CI); the long
 * version runs `CRASH_SCENARIOS` of them, cycling through the templates with
 * new seeds.
 */
import type { CrashPoint } from '@agent-ledger/crash-points';
import { CRASH_POINTS } from '@agent-ledger/crash-points';
import { Rng } from './rng';
import type { ScenarioSpec } from './scenario';

/** A scenario before its seed and size. */
export interface Template {
  readonly name: string;
  readonly point: CrashPoint | null;
  readonly everyPointProbability: number;
  readonly pointCrashBudget: number;
  readonly randomKills: number;
  readonly workers: number;
  readonly separateAuditStore: boolean;
  /** Short: the saga fails a run whose write lost its audit; long: the retry records the missing audit first. */
  readonly auditGapGraceMs: number;
  /** The agents' tools: the `ledger.*` test tools (default) or an MCP server's (ScenarioSpec.workload). */
  readonly workload?: 'ledger' | 'mcp';
  /** With the MCP workload: kills of a client by its server in the middle of a call. */
  readonly mcpClientKills?: number;
}

const SHORT_GRACE = 5_000;
const LONG_GRACE = 120_000;

/**
 * Where each named point's scenario keeps the audit streams, and its saga's
 * grace. `beforeAudit` is reached only where a step's records go one after
 * the other: the audit in a file of its own; the points around a step's one
 * commit (`afterToolReturned`, `afterStepRecorded`) keep it in the run store,
 * where that commit is made. The others alternate. A long grace lets the
 * retry record a missing audit before the saga fails the run.
 */
const POINT_SETTINGS: Readonly<Record<CrashPoint, { readonly separateAuditStore: boolean; readonly auditGapGraceMs: number }>> = {
  beforeWriteFence: { separateAuditStore: false, auditGapGraceMs: SHORT_GRACE },
  afterWriteFence: { separateAuditStore: true, auditGapGraceMs: LONG_GRACE },
  duringToolCall: { separateAuditStore: false, auditGapGraceMs: SHORT_GRACE },
  afterToolReturned: { separateAuditStore: false, auditGapGraceMs: LONG_GRACE },
  beforeAudit: { separateAuditStore: true, auditGapGraceMs: LONG_GRACE },
  afterStepRecorded: { separateAuditStore: false, auditGapGraceMs: SHORT_GRACE },
  beforeSettle: { separateAuditStore: true, auditGapGraceMs: LONG_GRACE },
  duringProjectionUpdate: { separateAuditStore: false, auditGapGraceMs: SHORT_GRACE },
};

/** The templates: every named point, then random kills, then the mix. */
export const TEMPLATES: readonly Template[] = [
  ...CRASH_POINTS.map(
    (point): Template => ({
      name: `point-${point}`,
      point,
      everyPointProbability: 0,
      pointCrashBudget: 3,
      randomKills: 0,
      workers: 1,
      ...POINT_SETTINGS[point],
    }),
  ),
  { name: 'random-kills', point: null, everyPointProbability: 0, pointCrashBudget: 0, randomKills: 4, workers: 1, separateAuditStore: false, auditGapGraceMs: SHORT_GRACE },
  { name: 'random-kills-two-workers', point: null, everyPointProbability: 0, pointCrashBudget: 0, randomKills: 5, workers: 2, separateAuditStore: true, auditGapGraceMs: LONG_GRACE },
  { name: 'random-kills-and-points', point: null, everyPointProbability: 0.04, pointCrashBudget: 4, randomKills: 3, workers: 2, separateAuditStore: false, auditGapGraceMs: SHORT_GRACE },
];

/**
 * The templates run on PostgreSQL (`crash-scenarios-postgres.e2e-spec.ts`), a
 * subset sized for CI: the write fence (`afterWriteFence`: a worker process
 * dies holding a write's fence, another must not run it again), a step's
 * records in one commit (`afterStepRecorded`: the process dies after it; the
 * mix reaches `afterToolReturned`, before it), the service's projections (`duringProjectionUpdate`: the read
 * models resume from the server) and the mix (every point at p = 0.04 and
 * random SIGKILLs). Each with two `worker` processes beside the service, and
 * the audit streams in PostgreSQL too (`AUDIT_STORE_PATH` is an embedded
 * file: one shared file would tie the processes to one machine), so a step's
 * records go in one commit there and `beforeAudit` is not reached.
 */
export const POSTGRES_TEMPLATES: readonly Template[] = ['point-afterWriteFence', 'point-afterStepRecorded', 'point-duringProjectionUpdate', 'random-kills-and-points'].map((name) => {
  const template = TEMPLATES.find((t) => t.name === name) as Template;
  return { ...template, workers: Math.max(2, template.workers), separateAuditStore: false };
});

/**
 * The MCP writes' scenarios (`mcp-writes.e2e-spec.ts`, issue 28 §3): every
 * write of the workload a call of the tests' MCP server, bound in the agents
 * file (`m.count` an `IDEMPOTENT_WRITE`, `m.append` a `NON_IDEMPOTENT_WRITE`
 * by default); the process that calls it SIGKILLed
 * - with the call fenced and not sent (`afterWriteFence`);
 * - in the middle of the call: the server executed it and, instead of
 *   answering, kills its client (`mcpServerKilledClient`, three kills:
 *   during an `append`, a queued run's `count`, then whichever comes);
 * - with the server's answer in hand and nothing recorded (`afterToolReturned`);
 * - between the step's `ToolExecuted` and its audit (`beforeAudit`, the audit
 *   streams in a file of their own, a short grace: the retry or the saga,
 *   whichever comes first, closes the gap).
 */
export const MCP_TEMPLATES: readonly Template[] = [
  { name: 'mcp-afterWriteFence', point: 'afterWriteFence', everyPointProbability: 0, pointCrashBudget: 3, randomKills: 0, workers: 1, separateAuditStore: false, auditGapGraceMs: SHORT_GRACE, workload: 'mcp' },
  { name: 'mcp-killedMidCall', point: null, everyPointProbability: 0, pointCrashBudget: 0, randomKills: 0, workers: 1, separateAuditStore: false, auditGapGraceMs: SHORT_GRACE, workload: 'mcp', mcpClientKills: 3 },
  { name: 'mcp-afterToolReturned', point: 'afterToolReturned', everyPointProbability: 0, pointCrashBudget: 3, randomKills: 0, workers: 1, separateAuditStore: false, auditGapGraceMs: LONG_GRACE, workload: 'mcp' },
  { name: 'mcp-beforeAudit', point: 'beforeAudit', everyPointProbability: 0, pointCrashBudget: 3, randomKills: 0, workers: 1, separateAuditStore: true, auditGapGraceMs: SHORT_GRACE, workload: 'mcp' },
];

/**
 * The MCP writes' scenarios on PostgreSQL (`mcp-writes-postgres.e2e-spec.ts`):
 * those whose point PostgreSQL reaches (a step's records go in one commit
 * there: no `beforeAudit`), each with two `worker` processes beside the
 * service, each process with MCP servers of its own.
 */
export const MCP_POSTGRES_TEMPLATES: readonly Template[] = MCP_TEMPLATES.filter((t) => t.point !== 'beforeAudit').map((t) => ({ ...t, workers: 2, separateAuditStore: false }));

/** What `npm test` or the long version runs (from the environment). */
export interface ScenarioSelection {
  /** `CRASH_SCENARIOS`: how many scenarios; default one per template (of those selected). */
  readonly count: number;
  /** `CRASH_SEED`: the base seed (with `CRASH_ONLY`: the scenario's own seed). Default: random, printed. */
  readonly seed: number;
  /** `CRASH_ONLY`: only the scenarios of this template. */
  readonly only: string | null;
  /** `CRASH_QUEUED_RUNS`, `CRASH_INTERACTIVE_RUNS`: the workload of each scenario. */
  readonly queuedRuns: number;
  readonly interactiveRuns: number;
}

/** Reads the selection from the environment, among `templates`. */
export function selectionFromEnv(env: NodeJS.ProcessEnv, templates: readonly Template[] = TEMPLATES, sizes: { readonly queuedRuns: number; readonly interactiveRuns: number } = { queuedRuns: 8, interactiveRuns: 4 }): ScenarioSelection {
  const int = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number (got "${value}")`);
    return Number(value);
  };
  const only = env.CRASH_ONLY === undefined || env.CRASH_ONLY === '' ? null : env.CRASH_ONLY;
  if (only !== null && !templates.some((t) => t.name === only)) throw new Error(`CRASH_ONLY must name a scenario: ${templates.map((t) => t.name).join(', ')}`);
  return {
    count: int('CRASH_SCENARIOS', only === null ? templates.length : 1),
    seed: int('CRASH_SEED', Math.floor(Math.random() * 2 ** 31)),
    only,
    queuedRuns: int('CRASH_QUEUED_RUNS', sizes.queuedRuns),
    interactiveRuns: int('CRASH_INTERACTIVE_RUNS', sizes.interactiveRuns),
  };
}

/** The scenarios of a selection among `from`; with `only` and a count of 1, the seed is the scenario's own. */
export function crashScenarios(selection: ScenarioSelection, from: readonly Template[] = TEMPLATES): ScenarioSpec[] {
  const templates = selection.only === null ? from : from.filter((t) => t.name === selection.only);
  const specs: ScenarioSpec[] = [];
  const seeds = new Rng(selection.seed);
  for (let i = 0; i < selection.count; i += 1) {
    const template = templates[i % templates.length] as Template;
    // The first scenario takes the base seed itself, so CRASH_ONLY + CRASH_SEED reproduce any scenario from its printed seed.
    const seed = i === 0 ? selection.seed : seeds.int(0, 2 ** 31 - 1);
    specs.push({
      name: template.name,
      label: selection.count > templates.length ? `${template.name} #${i + 1}` : template.name,
      seed,
      point: template.point,
      everyPointProbability: template.everyPointProbability,
      pointCrashBudget: template.pointCrashBudget,
      randomKills: template.randomKills,
      workers: template.workers,
      queuedRuns: selection.queuedRuns,
      interactiveRuns: selection.interactiveRuns,
      auditGapGraceMs: template.auditGapGraceMs,
      separateAuditStore: template.separateAuditStore,
      settleTimeoutMs: 300_000,
      ...(template.workload === undefined ? {} : { workload: template.workload }),
      ...(template.mcpClientKills === undefined ? {} : { mcpClientKills: template.mcpClientKills }),
    });
  }
  return specs;
}
