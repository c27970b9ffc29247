/**
 * What a benchmark scenario is and what it reports. Every scenario runs the
 * product and its baselines in one process run, round after round, so that
 * the figures it reports are ratios measured under the same load.
 */

/** One measured quantity of one subject in one configuration: a sample per round. */
export interface Measurement {
  /** What was measured: `product`, `baseline` (raw better-sqlite3, plain parsing...) or `peer` (another product). */
  readonly subject: 'product' | 'baseline' | 'peer';
  /** The configuration, e.g. `{ effect: 'READ_ONLY', runs: 64, durability: 'processCrash' }`. */
  readonly variant: Readonly<Record<string, string | number | boolean>>;
  /** e.g. `tool steps/s`, `p99 step latency`, `events/s`, `peak RSS`. */
  readonly metric: string;
  /** e.g. `steps/s`, `ms`, `MB`. */
  readonly unit: string;
  /** Whether a higher value is better (throughput) or a lower one (latency, memory). */
  readonly better: 'higher' | 'lower';
  /** One value per round. */
  readonly samples: readonly number[];
}

/** A ratio of two measurements of one run, e.g. product steps/s over baseline steps/s, round by round. */
export interface Ratio {
  readonly name: string;
  readonly variant: Readonly<Record<string, string | number | boolean>>;
  /** numerator / denominator per round (same round, same load). */
  readonly samples: readonly number[];
  /** Whether a higher ratio is better (a throughput) or a lower one (a cost, e.g. CPU per run). @default 'higher' */
  readonly better?: 'higher' | 'lower';
}

/** A target of issue 9 and whether this run meets it. */
export interface TargetCheck {
  readonly target: string;
  /** The figure compared with the target (a median), with its unit. */
  readonly measured: string;
  readonly met: boolean;
}

/** What a scenario returns. */
export interface ScenarioResult {
  readonly measurements: readonly Measurement[];
  readonly ratios: readonly Ratio[];
  readonly targets: readonly TargetCheck[];
  /** Settings and observations worth printing with the table (durability settings, peer errors...). */
  readonly notes: readonly string[];
}

/** What the runner gives a scenario. */
export interface BenchContext {
  /** Rounds per configuration (each round measures the product and its baselines once). */
  readonly rounds: number;
  /** A smaller size for a smoke run (the tests, `--quick`); the figures then mean little. */
  readonly quick: boolean;
  /** A fresh temporary folder, removed after the scenario. */
  tempDir(label: string): string;
  /** A progress line on stderr. */
  log(line: string): void;
}

/** A scenario of `npm run bench`. */
export interface BenchScenario {
  /** Short name for `--only`, e.g. `steps`. */
  readonly name: string;
  readonly title: string;
  run(context: BenchContext): Promise<ScenarioResult>;
}
