import type { MachineInfo } from './machine';
import type { Measurement, Ratio, ScenarioResult, TargetCheck } from './bench-scenario';
import type { Summary } from './stats';
import { summarise } from './stats';

/** A scenario's result with its summaries, as written to the JSON report. */
export interface ScenarioReport {
  readonly name: string;
  readonly title: string;
  readonly seconds: number;
  readonly measurements: ReadonlyArray<Measurement & { readonly summary: Summary }>;
  readonly ratios: ReadonlyArray<Ratio & { readonly summary: Summary }>;
  readonly targets: readonly TargetCheck[];
  readonly notes: readonly string[];
  /** Set when the scenario threw: its other fields are then empty. */
  readonly error?: string;
}

/** The whole run, as written to `bench/results/latest.json`. */
export interface BenchReport {
  readonly startedAt: string;
  readonly rounds: number;
  readonly quick: boolean;
  readonly machine: MachineInfo;
  readonly scenarios: readonly ScenarioReport[];
}

/** Adds the summaries of a scenario's samples. */
export function summariseScenario(name: string, title: string, seconds: number, result: ScenarioResult): ScenarioReport {
  return {
    name,
    title,
    seconds,
    measurements: result.measurements.map((m) => ({ ...m, summary: summarise(m.samples) })),
    ratios: result.ratios.map((r) => ({ ...r, summary: summarise(r.samples) })),
    targets: result.targets,
    notes: result.notes,
  };
}

/** A number for a table: 3 significant digits, thousands separated. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

const variantText = (variant: Readonly<Record<string, string | number | boolean>>) =>
  Object.entries(variant)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ')).join('\n');
}

/** The plain-text tables of a run (stdout). */
export function formatReport(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `agent-ledger benchmarks, ${report.startedAt}: ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, stores on ${m.tempFileSystem}, ` +
      `${report.rounds} round(s)${report.quick ? ', QUICK (smoke sizes: the figures mean little)' : ''}, load average at start ${m.loadAverageAtStart.join(' ')}`,
  ];
  for (const s of report.scenarios) {
    lines.push('', `== ${s.title} (${s.name}, ${s.seconds.toFixed(0)} s)`);
    if (s.error !== undefined) {
      lines.push(`FAILED: ${s.error}`);
      continue;
    }
    const rows = [['subject', 'variant', 'metric', 'median', 'min', 'max', 'spread']];
    for (const x of s.measurements) {
      rows.push([x.subject, variantText(x.variant), `${x.metric} (${x.unit})`, formatNumber(x.summary.median), formatNumber(x.summary.min), formatNumber(x.summary.max), `${(x.summary.spread * 100).toFixed(0)}%`]);
    }
    lines.push(table(rows));
    if (s.ratios.length > 0) {
      const ratioRows = [['ratio', 'variant', 'median', 'min', 'max']];
      for (const r of s.ratios) ratioRows.push([r.name, variantText(r.variant), formatNumber(r.summary.median), formatNumber(r.summary.min), formatNumber(r.summary.max)]);
      lines.push('', table(ratioRows));
    }
    for (const t of s.targets) lines.push(`${t.met ? 'MET    ' : 'NOT MET'}  ${t.target}: ${t.measured}`);
    for (const note of s.notes) lines.push(`note: ${note}`);
  }
  return lines.join('\n');
}
