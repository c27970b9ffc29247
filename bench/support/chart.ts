import type { BenchReport } from './report';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One bar of the chart: a median with its min and max over the rounds. */
export interface ChartBar {
  readonly label: string;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/**
 * A horizontal bar chart (SVG, no script, no external resource) of the
 * run's ratios, each with its rounds' min-max whisker, and a marker per
 * target ratio when the scenario states one.
 */
export function ratioChart(report: BenchReport, targets: Readonly<Record<string, number>> = {}): string {
  const bars: Array<ChartBar & { target?: number }> = [];
  for (const s of report.scenarios) {
    // Ratios where higher is better only: a cost ratio (CPU per run) reads the other way round.
    for (const r of s.ratios.filter((ratio) => ratio.better !== 'lower')) {
      const variant = Object.values(r.variant).map(String).join(' ');
      bars.push({ label: `${r.name}${variant === '' ? '' : `, ${variant}`}`, median: r.summary.median, min: r.summary.min, max: r.summary.max, target: targets[r.name] });
    }
  }
  return barChart(`agent-ledger: product / baseline, ${report.machine.cores} cores, ${report.startedAt.slice(0, 10)} (median of ${report.rounds} rounds, whiskers min-max)`, bars);
}

/** The SVG of horizontal bars. */
export function barChart(title: string, bars: ReadonlyArray<ChartBar & { target?: number }>): string {
  const labelWidth = 460;
  const plotWidth = 420;
  const rowHeight = 22;
  const top = 40;
  const height = top + bars.length * rowHeight + 30;
  // Capped at 2 (twice the baseline): a ratio of 10 would flatten the others; its bar ends at the edge, its value is printed.
  const scaleMax = Math.min(2, Math.max(1, ...bars.map((b) => Math.max(b.max, b.target ?? 0)))) * 1.1;
  const x = (v: number) => labelWidth + (Math.min(Math.max(0, v), scaleMax) / scaleMax) * plotWidth;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 80}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${escape(title)}</text>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2].filter((t) => t <= scaleMax)) {
    parts.push(`<line x1="${x(tick)}" y1="${top - 5}" x2="${x(tick)}" y2="${height - 25}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(tick)}" y="${height - 10}" text-anchor="middle" fill="#555">${tick}</text>`);
  }
  bars.forEach((b, i) => {
    const y = top + i * rowHeight;
    parts.push(`<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end">${escape(b.label)}</text>`);
    const met = b.target === undefined || b.median >= b.target;
    parts.push(`<rect x="${labelWidth}" y="${y + 3}" width="${Math.max(1, x(b.median) - labelWidth)}" height="${rowHeight - 8}" fill="${met ? '#4a7ebb' : '#d9822b'}"/>`);
    parts.push(`<line x1="${x(b.min)}" y1="${y + 10}" x2="${x(b.max)}" y2="${y + 10}" stroke="#222"/>`);
    parts.push(`<text x="${x(Math.max(b.median, b.max)) + 6}" y="${y + 14}" fill="#222">${b.median >= 10 ? b.median.toFixed(1) : b.median.toFixed(2)}</text>`);
    if (b.target !== undefined) parts.push(`<line x1="${x(b.target)}" y1="${y + 1}" x2="${x(b.target)}" y2="${y + rowHeight - 3}" stroke="#c00" stroke-width="2" stroke-dasharray="3,2"/>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
