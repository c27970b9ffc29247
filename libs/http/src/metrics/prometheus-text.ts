/** One sample of a metric family. */
export interface MetricSample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A metric family: one `# HELP`, one `# TYPE` and its samples. */
export interface MetricFamily {
  /** `[a-zA-Z_:][a-zA-Z0-9_:]*`; counters end in `_total`. */
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: readonly MetricSample[];
}

/** The content type of the Prometheus text exposition format 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * Renders metric families in the Prometheus text exposition format (0.0.4):
 * `# HELP`, `# TYPE`, then `name{label="value",...} number` lines, label
 * values escaped (`\\`, `\"`, `\n`), a final newline.
 * @throws Error for a metric or label name that the format does not allow (a bug)
 */
export function renderPrometheusText(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (!NAME.test(family.name)) throw new Error(`Not a Prometheus metric name: ${family.name}`);
    lines.push(`# HELP ${family.name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels ?? {});
      for (const [name] of labels) if (!LABEL.test(name)) throw new Error(`Not a Prometheus label name: ${name}`);
      const text = labels.length === 0 ? '' : `{${labels.map(([name, value]) => `${name}="${labelValue(value)}"`).join(',')}}`;
      lines.push(`${family.name}${text} ${numberText(sample.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
