/**
 * The crash scenarios as a jest suite: every scenario started in `beforeAll`,
 * `parallel` at a time, each test awaiting its own; the figures of all of
 * them printed (and written to a file, if asked) at the end. Shared by the
 * embedded store's file and PostgreSQL's.
 */
import { writeFileSync } from 'node:fs';
import type { ScenarioOptions, ScenarioOutcome, ScenarioSpec } from './scenario';
import { runScenario } from './scenario';
import { summaryLine } from './report';
import { scaled } from '../../support/time-scale';

/** What {@link describeCrashScenarios} runs. */
export interface CrashSuite {
  /** The describe's title. */
  readonly title: string;
  readonly scenarios: readonly ScenarioSpec[];
  /** Scenarios at a time. */
  readonly parallel: number;
  /** The base seed, for the figures. */
  readonly seed: number;
  /** The prefix of the figures' line (`crash figures`). */
  readonly figuresLabel: string;
  /** Where to write the figures as JSON too, or null. */
  readonly figuresFile: string | null;
  /**
   * What every scenario shares, made before the first starts (a PostgreSQL
   * server): the options of each scenario. Undone by `tearDown` once every
   * scenario ended.
   */
  readonly setUp?: () => Promise<ScenarioOptions>;
  readonly tearDown?: () => Promise<void>;
  readonly keepDirs: boolean;
}

/** Declares the suite: one test per scenario. */
export function describeCrashScenarios(suite: CrashSuite): void {
  describe(suite.title, () => {
    const outcomes = new Map<number, Promise<ScenarioOutcome>>();
    const finished: ScenarioOutcome[] = [];
    const started = Date.now();

    beforeAll(async () => {
      const shared = suite.setUp === undefined ? {} : await suite.setUp();
      // Every scenario starts here, `parallel` at a time; each test awaits its own.
      const slots: Array<() => void> = [];
      let running = 0;
      const release = () => {
        running -= 1;
        slots.shift()?.();
      };
      const acquire = () =>
        new Promise<void>((resolve) => {
          if (running < suite.parallel) {
            running += 1;
            resolve();
          } else {
            slots.push(() => {
              running += 1;
              resolve();
            });
          }
        });
      suite.scenarios.forEach((spec, index) => {
        outcomes.set(
          index,
          acquire().then(async () => {
            try {
              const outcome = await runScenario(spec, { ...shared, keepDir: suite.keepDirs });
              finished.push(outcome);
              process.stdout.write(`${summaryLine(outcome.report)}\n`);
              return outcome;
            } finally {
              release();
            }
          }),
        );
      });
    }, scaled(120_000));

    afterAll(async () => {
      await Promise.allSettled([...outcomes.values()]);
      await suite.tearDown?.();
      const crashes: Record<string, number> = {};
      let runs = 0;
      let executions = 0;
      let violations = 0;
      for (const { report } of finished) {
        for (const [k, v] of Object.entries(report.crashes)) crashes[k] = (crashes[k] ?? 0) + v;
        runs += report.figures?.runs ?? 0;
        executions += Object.values(report.figures?.executions ?? {}).reduce((a, b) => a + b, 0);
        violations += report.violations.length + report.harnessErrors.length;
      }
      const figures = {
        seed: suite.seed,
        scenarios: finished.length,
        wallSeconds: Math.round((Date.now() - started) / 1000),
        crashes,
        runs,
        executions,
        violations,
        perScenario: finished.map(({ report }) => ({
          scenario: report.label,
          seed: report.seed,
          seconds: Math.round(report.wallMs / 1000),
          settleSeconds: Math.round(report.settleMs / 1000),
          crashes: report.crashes,
          answers: report.answers,
          outcomes: report.figures?.byOutcome,
          executions: report.figures?.executions,
          reExecutedSteps: report.figures?.reExecutedSteps,
          claims: report.figures?.claims,
          requeuedLeaseExpired: report.figures?.requeuedLeaseExpired,
          auditGaps: report.figures?.auditGaps,
          auditsRecordedByRetry: report.figures?.auditsRecordedByRetry,
          readsWithoutRecord: report.figures?.readsWithoutRecord,
          approvalsGranted: report.figures?.approvalsGranted,
          ...(report.figures?.mcp === undefined ? {} : { mcp: report.figures.mcp }),
          violations: report.violations.length + report.harnessErrors.length,
        })),
      };
      process.stdout.write(`${suite.figuresLabel}: ${JSON.stringify(figures)}\n`);
      if (suite.figuresFile !== null) writeFileSync(suite.figuresFile, `${JSON.stringify(figures, null, 2)}\n`);
    }, scaled(60_000));

    // A test waits for its own scenario only (every earlier one has ended, so its own has started): 62 to 149 s
    // each on a loaded machine; one that has not ended in 5 min (scaled) hangs, and fails in minutes, not hours.
    suite.scenarios.forEach((spec, index) => {
      it(`${spec.label}: every invariant holds after the crashes (seed ${spec.seed})`, async () => {
        const outcome = await (outcomes.get(index) as Promise<ScenarioOutcome>);
        if (outcome.failure !== '') throw new Error(outcome.failure);
        expect(outcome.report.violations).toEqual([]);
      }, scaled(300_000));
    });
  });
}
