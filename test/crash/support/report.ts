/** How a crash scenario reports: its figures, and each violation with the seed, the point and the events of the run. */
import type { History, HistoryEvent } from './history';
import type { HistoryFigures, Violation } from './invariants';
import type { McpFigures } from './mcp-workload';
import type { ProcessExit } from './processes';

/** What one scenario did and found. */
export interface ScenarioReport {
  readonly name: string;
  readonly label: string;
  readonly seed: number;
  /** The named crash point the scenario arms, or null (random kills only). */
  readonly point: string | null;
  readonly wallMs: number;
  readonly settleMs: number;
  readonly submitted: { readonly queued: number; readonly interactive: number };
  /** How the service answered the submissions: `queued`, `interactive:<segment outcome>`, `existed` (a retry after a crash found the run recorded). */
  readonly answers: Record<string, number>;
  /** Crashes injected: by crash point (`point:<name>`), or `external` (a random SIGKILL from the harness). */
  readonly crashes: Record<string, number>;
  /** Every end of a process, in order. */
  readonly exits: readonly ProcessExit[];
  /** With the MCP workload, `mcp`: the MCP path's own figures. */
  readonly figures: (HistoryFigures & { readonly mcp?: McpFigures }) | null;
  readonly violations: readonly Violation[];
  /** Problems of the harness itself (a process that would not start, a request that kept failing); they fail the scenario too. */
  readonly harnessErrors: readonly string[];
  /** The folder with the processes' logs, the stores and the ledger (kept when the scenario failed). */
  readonly dir: string;
}

/** One line per event: `#revision Type key=value ...` with the fields that matter after a crash. */
export function formatEvent(e: HistoryEvent): string {
  const d = e.data;
  const parts: string[] = [`#${e.revision}`, e.type];
  const show = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    parts.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  };
  const step = typeof d['stepId'] === 'string' ? (d['stepId'] as string).replace(/^.*?\/(r\d+\/)/, '$1') : undefined;
  show('step', step);
  show('mode', d['mode']);
  show('owner', d['owner']);
  show('attempt', d['attempt']);
  show('tool', d['toolName']);
  show('effect', d['effect']);
  show('outcome', d['outcome']);
  show('reason', d['reason']);
  show('cause', d['cause']);
  show('deadLettered', d['deadLettered']);
  show('sequence', d['sequence']);
  const inFlight = d['inFlightWrite'] as { stepId?: string; attempt?: number } | null | undefined;
  if (inFlight) show('inFlight', `${inFlight.stepId?.replace(/^.*?\/(r\d+\/)/, '$1')}@${inFlight.attempt}`);
  const failure = (d['failure'] ?? d['error']) as { failureClass?: string; code?: string; message?: string } | null | undefined;
  if (failure) show('failure', `${failure.failureClass}/${failure.code ?? '-'}: ${failure.message ?? ''}`);
  show('leaseExpiresAt', d['leaseExpiresAt']);
  return parts.join(' ');
}

/** The events of a run, its audit stream and its ledger lines, for a violation's report. */
export function formatRun(history: History, runId: string): string {
  const lines = [`run ${runId}:`];
  for (const e of history.runs.get(runId) ?? []) lines.push(`  ${formatEvent(e)}`);
  const audits = history.audits.get(runId) ?? [];
  if (audits.length > 0) lines.push(`  audit-${runId}:`);
  for (const e of audits) lines.push(`    ${formatEvent(e)}`);
  const ledger = history.ledger.filter((l) => l.runId === runId);
  if (ledger.length > 0) lines.push('  ledger:');
  for (const l of ledger) lines.push(`    ${l.tool} step=${l.stepId.replace(/^.*?\/(r\d+\/)/, '$1')} attempt=${l.attempt} pid=${l.pid} at=${l.at}`);
  return lines.join('\n');
}

/** The report printed when a scenario breaks an invariant: seed, point, violations, and the events of each run concerned. */
export function formatViolations(
  report: Pick<ScenarioReport, 'name' | 'label' | 'seed' | 'point' | 'violations' | 'harnessErrors' | 'exits' | 'dir'>,
  history: History | null,
  reproduce = `CRASH_ONLY=${report.name} CRASH_SEED=${report.seed} CI=true npx jest test/crash/crash-scenarios`,
): string {
  const out = [`CRASH SCENARIO ${report.label} FAILED: seed ${report.seed}, point ${report.point ?? '(random SIGKILLs)'}`, `reproduce: ${reproduce}   (logs, stores and ledger kept in ${report.dir})`];
  for (const error of report.harnessErrors) out.push(`harness: ${error}`);
  for (const v of report.violations) out.push(`invariant ${v.invariant}${v.runId === null ? '' : ` (run ${v.runId})`}: ${v.message}`);
  out.push('crashes:');
  for (const exit of report.exits) {
    if (exit.cause === 'stopped') continue;
    out.push(`  +${exit.at} ms ${exit.process}#${exit.incarnation} pid ${exit.pid}: ${exit.cause}${exit.crashLine === null ? '' : ` (${exit.crashLine})`}`);
  }
  if (history !== null) {
    const runs = [...new Set(report.violations.map((v) => v.runId).filter((id): id is string => id !== null))];
    for (const runId of runs.slice(0, 10)) out.push(formatRun(history, runId));
    if (runs.length > 10) out.push(`... and ${runs.length - 10} more runs`);
  }
  return out.join('\n');
}

/** The one-line summary of a scenario, for the figures table. */
export function summaryLine(report: ScenarioReport): string {
  const crashes = Object.entries(report.crashes)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const f = report.figures;
  const executions = f === null ? '-' : Object.values(f.executions).reduce((a, b) => a + b, 0);
  return `${report.label.padEnd(32)} seed ${String(report.seed).padEnd(10)} ${(report.wallMs / 1000).toFixed(1).padStart(6)} s  runs ${f?.runs ?? '-'}  executions ${executions}  crashes [${crashes}]  violations ${report.violations.length + report.harnessErrors.length}`;
}
