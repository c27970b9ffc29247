/**
 * Saga latency (issue 9, scenario 4): the time from a missing audit's
 * deadline (`ToolExecuted.executedAt` + the grace period) to the `RunFailed`
 * (`AUDIT_MISSING`) the audit-gap saga appends.
 *
 * Method (docs/benchmarks.md): the runtime runs in this process
 * (`AgentLedgerModule`, embedded store on disk, saga on, read models on, no
 * workers). A worker that "died" between writes and their audits is played
 * by `saga/crashed-writes.ts`: N runs, each appended decision by decision
 * through the store, whose write's `AuditRecorded` never comes, spaced by
 * random (exponential) gaps so that deadlines fall anywhere in the saga's
 * check cycle. A subscription to `$all` (RunFailed) collects the failures
 * with a deadline; lateness = the `RunFailed`'s stored time − (executedAt +
 * grace). Each round and setting starts a fresh runtime on fresh files.
 *
 * The saga checks its deadlines every `checkIntervalMs`, so its lateness is
 * bounded below by that polling: a baseline measures it, a bare `setInterval`
 * at the same interval over the same deadlines, in the same process.
 */
import { join } from 'node:path';
import type { RunFailed, StepTool } from '@agent-ledger/domain';
import { createRunDecider, ToolEffect } from '@agent-ledger/domain';
import { eventTypeFilter, SqliteEventStore } from '@agent-ledger/event-store';
import { DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS } from '@agent-ledger/runtime';
import type { BenchContext, BenchScenario, Measurement, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { Latencies, median } from '../support/stats';
import { seededRandom } from './rebuild/history';
import type { CrashedWrite } from './saga/crashed-writes';
import { appendCrashedWrite } from './saga/crashed-writes';
import type { SagaSettings } from './saga/saga-host';
import { SAGA_AGENT, startSagaHost } from './saga/saga-host';

/** The saga's default check interval (AuditGapSagaOptions.checkIntervalMs), taken from the runtime so the two cannot drift. */
export const DEFAULT_CHECK_INTERVAL_MS = DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS;
/** The saga's default check interval before the benchmark (1 s): measured for contrast. */
export const FORMER_CHECK_INTERVAL_MS = 1000;
/** Issue 9's target: detection within grace + 100 ms at p99. */
export const SAGA_TARGET_LATENESS_MS = 100;

/** The sizes of a run of the scenario. */
export interface SagaLoad {
  /** Writes without audit per round and setting. */
  readonly writes: number;
  readonly gracePeriodMs: number;
  /** Mean gap between two crashed writes (exponential), ms. */
  readonly meanGapMs: number;
}

/** Full size, and the smoke size of `--quick` and the tests. */
export const SAGA_LOAD: Readonly<Record<'full' | 'quick', SagaLoad>> = {
  full: { writes: 200, gracePeriodMs: 1000, meanGapMs: 40 },
  quick: { writes: 20, gracePeriodMs: 300, meanGapMs: 20 },
};

const TOOLS: readonly StepTool[] = [
  { name: 'bench.saga.put', effect: ToolEffect.IDEMPOTENT_WRITE, operationDeadlineSeconds: 30 },
  { name: 'bench.saga.append', effect: ToolEffect.NON_IDEMPOTENT_WRITE, operationDeadlineSeconds: 30 },
];

/**
 * The polling floor: a bare `setInterval` at the saga's interval that, at
 * each tick, takes the deadlines that passed, as the saga's check does, and
 * does nothing else. Its lateness is what polling alone costs.
 */
class PollingFloor {
  readonly lateness = new Latencies();
  private deadlines: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.timer = setInterval(() => {
      const now = Date.now();
      const due = this.deadlines.filter((d) => d <= now);
      if (due.length === 0) return;
      this.deadlines = this.deadlines.filter((d) => d > now);
      for (const deadline of due) this.lateness.add(now - deadline);
    }, intervalMs);
  }

  add(deadline: number): void {
    this.deadlines.push(deadline);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** What one round of one setting measured. */
interface SagaRound {
  readonly product: Latencies;
  readonly floor: Latencies;
  readonly minLatenessMs: number;
}

/** One round of one setting: a fresh runtime, N crashed writes, their failures collected. */
async function runRound(context: BenchContext, load: SagaLoad, settings: SagaSettings, round: number): Promise<SagaRound> {
  const dir = context.tempDir(`interval${settings.checkIntervalMs}r${round}`);
  const store = SqliteEventStore.open({ path: join(dir, 'agent-ledger.sqlite') });
  const host = await startSagaHost(store, dir, settings).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const floor = new PollingFloor(settings.checkIntervalMs);
  const writes = new Map<string, CrashedWrite>();
  const product = new Latencies();
  let minLatenessMs = Number.POSITIVE_INFINITY;
  const failures = new AbortController();
  const subscription = store.subscribeToAll({ filter: eventTypeFilter('RunFailed'), signal: failures.signal });
  let produced = false;
  // Collects the RunFailed of every write; ends when all are in, or when aborted at the deadline. Settles with its error, never rejects.
  const collecting: Promise<unknown> = (async () => {
    for await (const event of subscription) {
      const data = event.data as RunFailed['data'];
      const write = writes.get(data.runId);
      if (write === undefined) throw new Error(`RunFailed of an unknown run ${data.runId}`);
      if (data.reason !== 'AUDIT_MISSING') throw new Error(`run ${data.runId} failed ${data.reason}, not AUDIT_MISSING`);
      const lateness = event.created.getTime() - (write.executedAt + settings.gracePeriodMs);
      product.add(lateness);
      minLatenessMs = Math.min(minLatenessMs, lateness);
      if (produced && product.count === writes.size) return;
    }
  })().then(
    () => null,
    (error: unknown) => (failures.signal.aborted ? null : error),
  );
  try {
    const random = seededRandom(7919 * (round + 1) + settings.checkIntervalMs);
    const decider = createRunDecider();
    for (let i = 0; i < load.writes; i++) {
      // Pacing the load (not synchronisation): deadlines fall anywhere in the check cycle.
      const gapMs = -Math.log(1 - random()) * load.meanGapMs;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
      const write = await appendCrashedWrite(store, decider, SAGA_AGENT.name, TOOLS[i % TOOLS.length] as StepTool, `worker:bench-crashed-host:4242:s${i.toString(36)}`);
      writes.set(write.runId, write);
      floor.add(write.executedAt + settings.gracePeriodMs);
    }
    produced = true;
    const lastDeadline = Math.max(...[...writes.values()].map((w) => w.executedAt)) + settings.gracePeriodMs;
    const waitMs = lastDeadline - Date.now() + settings.checkIntervalMs + 30_000;
    const deadline = setTimeout(() => failures.abort(), Math.max(waitMs, 1));
    let failed: unknown = null;
    try {
      if (product.count < writes.size) failed = await collecting;
    } finally {
      clearTimeout(deadline);
    }
    if (failed !== null) throw failed;
    if (product.count < writes.size) {
      throw new Error(`the saga failed ${product.count} of ${writes.size} runs within ${formatNumber(waitMs)} ms of the last deadline being due`);
    }
    return { product, floor: floor.lateness, minLatenessMs };
  } finally {
    floor.stop();
    failures.abort();
    await collecting;
    await host.close();
    await store.close();
  }
}

/** Saga latency: a missing audit's deadline to RunFailed. */
export const sagaScenario: BenchScenario = {
  name: 'saga',
  title: "Saga latency: a missing audit's deadline to RunFailed",
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const load = context.quick ? SAGA_LOAD.quick : SAGA_LOAD.full;
    const intervals = [DEFAULT_CHECK_INTERVAL_MS, FORMER_CHECK_INTERVAL_MS];
    const rounds = new Map<number, SagaRound[]>(intervals.map((i) => [i, []]));
    for (let round = 0; round < context.rounds; round++) {
      const order = round % 2 === 0 ? intervals : [...intervals].reverse();
      for (const checkIntervalMs of order) {
        const result = await runRound(context, load, { gracePeriodMs: load.gracePeriodMs, checkIntervalMs }, round);
        rounds.get(checkIntervalMs)?.push(result);
        context.log(
          `round ${round + 1}/${context.rounds}, checkIntervalMs ${checkIntervalMs}: lateness p50 ${formatNumber(result.product.percentile(50))} ms, ` +
            `p99 ${formatNumber(result.product.percentile(99))} ms, max ${formatNumber(result.product.percentile(100))} ms ` +
            `(polling floor p99 ${formatNumber(result.floor.percentile(99))} ms)`,
        );
      }
    }

    const measurements: Measurement[] = [];
    const targets: TargetCheck[] = [];
    const notes: string[] = [
      `settings: gracePeriodMs ${load.gracePeriodMs}${context.quick ? ' (QUICK; 1000 at full size)' : ''}, checkIntervalMs ${DEFAULT_CHECK_INTERVAL_MS} (the default) and ${FORMER_CHECK_INTERVAL_MS} (the former default) ` +
        `(the documented option auditGapSaga.checkIntervalMs); ${load.writes} writes without audit per round and setting ` +
        `(IDEMPOTENT_WRITE and NON_IDEMPOTENT_WRITE alternately), exponential gaps of mean ${load.meanGapMs} ms; a fresh runtime and files per round and setting`,
      'the runtime: AgentLedgerModule.forRoot on SqliteEventStore (processCrash), saga and read models on, reaper at its default, no workers; ' +
        'the crashed worker\'s appends are made in the same process, through the same store',
      'lateness = stored time of RunFailed (AUDIT_MISSING) − (ToolExecuted.executedAt + grace); baseline = a bare setInterval at the same interval over the same deadlines',
    ];
    for (const checkIntervalMs of intervals) {
      const results = rounds.get(checkIntervalMs) ?? [];
      const variant = { checkIntervalMs, gracePeriodMs: load.gracePeriodMs, writes: load.writes };
      const samples = (pick: (r: SagaRound) => number) => results.map(pick);
      measurements.push(
        { subject: 'product', variant, metric: 'p50 lateness', unit: 'ms', better: 'lower', samples: samples((r) => r.product.percentile(50)) },
        { subject: 'product', variant, metric: 'p99 lateness', unit: 'ms', better: 'lower', samples: samples((r) => r.product.percentile(99)) },
        { subject: 'product', variant, metric: 'max lateness', unit: 'ms', better: 'lower', samples: samples((r) => r.product.percentile(100)) },
        { subject: 'baseline', variant, metric: 'p50 lateness', unit: 'ms', better: 'lower', samples: samples((r) => r.floor.percentile(50)) },
        { subject: 'baseline', variant, metric: 'p99 lateness', unit: 'ms', better: 'lower', samples: samples((r) => r.floor.percentile(99)) },
      );
      const p99 = median(samples((r) => r.product.percentile(99)));
      targets.push({
        target: `saga detection within grace + 100 ms at p99 (checkIntervalMs ${checkIntervalMs}${checkIntervalMs === DEFAULT_CHECK_INTERVAL_MS ? ', the default' : ''})`,
        measured: `p99 lateness ${formatNumber(p99)} ms over grace ${load.gracePeriodMs} ms (median of ${results.length} round(s) of ${load.writes} writes${context.quick ? '; QUICK' : ''})`,
        met: p99 <= SAGA_TARGET_LATENESS_MS,
      });
      const earliest = Math.min(...results.map((r) => r.minLatenessMs));
      notes.push(`checkIntervalMs ${checkIntervalMs}: least lateness ${formatNumber(earliest)} ms${earliest < 0 ? ' (NEGATIVE: a run failed before its deadline)' : ' (never before the deadline)'}`);
    }
    return { measurements, ratios: [], targets, notes };
  },
};
