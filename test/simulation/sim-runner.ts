import fc from 'fast-check';
import type { Check, CheckFigures, Violation } from './invariants';
import { checkInvariants, describeRun, KNOWN_FINDINGS } from './invariants';
import type { Schedule } from './sim-model';
import { scheduleArbitrary } from './sim-model';
import type { History, SimCounters, SimOptions } from './sim-world';
import { SimulationStuckError, SimWorld } from './sim-world';

/** What one schedule gave. */
export interface ScheduleOutcome {
  readonly violations: readonly Violation[];
  readonly figures: CheckFigures;
  readonly counters: SimCounters;
  readonly trace: readonly string[];
  readonly history: History;
}

/** Plays a schedule on a fresh world: the actions, the settle phase, then every invariant. */
export async function runSchedule(schedule: Schedule, options: SimOptions = {}): Promise<ScheduleOutcome> {
  const world = await SimWorld.start({ ...options, audit: schedule.audit ?? 'own store' });
  let stuck = false;
  let history: History;
  try {
    for (const agent of schedule.initial) await world.enqueue(agent);
    for (const action of schedule.actions) await world.play(action);
    await world.settle(schedule.settle);
  } catch (error) {
    if (!(error instanceof SimulationStuckError)) throw error;
    stuck = true;
  } finally {
    history = await world.history();
    await world.close();
  }
  const { violations, figures } = checkInvariants(history, !stuck);
  return { violations, figures, counters: world.counters, trace: world.trace, history };
}

/** The report of a failing schedule: what broke, the schedule as played, and the events of the runs concerned. */
export function describeFailure(outcome: ScheduleOutcome): string {
  const lines = [`${outcome.violations.length} invariant violation(s):`];
  for (const v of outcome.violations) lines.push(`  [${v.check}] ${v.runId ?? '-'}: ${v.message}`);
  lines.push('The schedule as played (t = simulated clock, ms):', ...outcome.trace.map((l) => `  ${l}`));
  const concerned = new Set(outcome.violations.map((v) => v.runId).filter((r): r is string => r !== null));
  for (const run of outcome.history.runs) if (concerned.has(run.runId)) lines.push(describeRun(run, outcome.history.ledger));
  return lines.join('\n');
}

/** Totals over many schedules. */
export class SimTotals {
  schedules = 0;
  failing = 0;
  /** Schedules with only known findings. */
  known = 0;
  readonly counters: Record<string, number> = {};
  readonly violations: Partial<Record<Check, number>> = {};

  add(outcome: ScheduleOutcome): void {
    this.schedules++;
    if (outcome.violations.some((v) => !KNOWN_FINDINGS.has(v.check))) this.failing++;
    else if (outcome.violations.length > 0) this.known++;
    for (const source of [outcome.counters, outcome.figures]) {
      for (const [k, v] of Object.entries(source)) this.counters[k] = (this.counters[k] ?? 0) + v;
    }
    for (const v of outcome.violations) this.violations[v.check] = (this.violations[v.check] ?? 0) + 1;
  }

  /** A readable summary. */
  summary(wallMs: number): string {
    const c = (k: string) => this.counters[k] ?? 0;
    const sum = (prefix: string) => Object.entries(this.counters).filter(([k]) => k.startsWith(prefix)).reduce((n, [, v]) => n + v, 0);
    const lines = [
      `simulation: ${this.schedules} schedules in ${(wallMs / 1000).toFixed(1)} s (${((this.schedules * 1000) / wallMs).toFixed(1)} schedules/s), ${this.failing} failing, ${this.known} with known findings only`,
      `  actions ${sum('action:') - c('action:together') - c('action:race')}, runs ${c('runs')}, segments ${c('metric:segmentsStarted')}, crash points reached ${c('crashPointsReached')}, model calls ${c('metric:modelCalls')}, tool executions ${c('metric:toolExecutions')}`,
      `  injected: pauses ${c('fault:pause')}, process crashes ${c('fault:crash')} (segments killed ${c('fault:segmentKilled')}), clock past a lease ${c('fault:clockPastLease')}, ` +
        `audit store broken ${c('fault:auditBroken')} (appends refused ${c('auditAppendsRefused')}), model outages ${c('fault:modelOutage')}, tool faults ${c('fault:toolFault')}, ` +
        `cancels ${c('action:cancel')}, approvals ${c('fault:approve')} / denials ${c('fault:deny')}, inputs ${c('fault:input')}, together ${c('action:together')}`,
      `  API refusals (part of the game): ${sum('refused:')} (${Object.entries(this.counters).filter(([k]) => k.startsWith('refused:')).map(([k, v]) => `${k.slice(8)} ${v}`).join(', ')})`,
      `  runtime: leases lost ${c('metric:leaseLost')}, reaper passes ${c('metric:reaperRuns')}, conflicts re-decided ${c('metric:runCommandConflicts')}, claims lost ${c('metric:claimsLost')}, ` +
        `audit fail-closed ${c('metric:auditFailClosed')} / fail-soft ${c('metric:auditFailSoft')}, gaps reported ${c('metric:auditGapsReported')}, approvals requested ${c('metric:approvalsRequested')}, inputs requested ${c('metric:inputsRequested')}, ` +
        `steps stored in one commit ${c('metric:stepsAppendedTogether')} (then one record after the other ${c('metric:stepAppendFallbacks')}; worlds with the audit in the run store ${c('world:auditInRunStore')})`,
      `  decisions: races ${c('action:race')}; took effect: approval rounds ${c('decisions:approval')}, input answers ${c('decisions:input')}; ` +
        `statements not stored at once ${c('statements:deferred')}, stored late ${c('statements:late')}, runs failed closed for one ${c('statements:failClosed')}, reconciler tries failed ${c('statements:failed')}`,
      `  pauses at: ${Object.entries(this.counters).filter(([k]) => k.startsWith('pauseAt:')).map(([k, v]) => `${k.slice(8)} ${v}`).join(', ')}`,
      `  outcomes: ${Object.entries(this.counters).filter(([k]) => k.startsWith('runs:')).sort(([, a], [, b]) => b - a).map(([k, v]) => `${k.slice(5)} ${v}`).join(', ')}`,
      `  accepted on the way: ${Object.entries(this.counters).filter(([k]) => !k.includes(':') && k !== 'runs' && k !== 'crashPointsReached' && k !== 'auditAppendsRefused').map(([k, v]) => `${k} ${v}`).join('; ') || 'nothing'}`,
      `  violations: ${Object.entries(this.violations).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    ];
    return lines.join('\n');
  }
}

/** The replay line for a fast-check failure message. */
export function replayLine(message: string): string | null {
  const seed = /seed: (-?\d+)/.exec(message)?.[1];
  const path = /path: "([^"]*)"/.exec(message)?.[1];
  if (seed === undefined) return null;
  return `Replay exactly this schedule: SIM_SEED=${seed}${path === undefined ? '' : ` SIM_PATH=${path}`} npm run test:sim`;
}

/** Options of the property. */
export interface PropertyOptions extends SimOptions {
  /** Fail on the known findings too. @default false */
  readonly strict?: boolean;
}

/** The property the simulation checks: every invariant holds after every schedule (but the known findings, unless strict). */
export function simulationProperty(maxActions: number, totals: SimTotals, options: PropertyOptions = {}) {
  return fc.asyncProperty(scheduleArbitrary(maxActions), async (schedule) => {
    const outcome = await runSchedule(schedule, options);
    totals.add(outcome);
    const failing = options.strict === true ? outcome.violations : outcome.violations.filter((v) => !KNOWN_FINDINGS.has(v.check));
    if (failing.length > 0) throw new Error(describeFailure(outcome));
  });
}
