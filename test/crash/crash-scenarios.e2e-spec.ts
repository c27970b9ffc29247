/**
 * Crash injection with real processes (issue 8): the service and extra
 * `worker` processes as children, a mixed workload, SIGKILLs at the named
 * crash points and at random moments, restarts, the settle phase, and every
 * invariant of semantics.md section 7 checked from the stores, the read
 * models and the execution ledger. See test/crash/README.md.
 *
 * `npm test` runs one scenario per template (7 named points, 3 random),
 * `CRASH_PARALLEL` (default 5) at a time. The long version:
 * `CRASH_SCENARIOS=200 CI=true npx jest test/crash`.
 */
import { writeFileSync } from 'node:fs';
import type { ScenarioOutcome } from './support/scenario';
import { runScenario } from './support/scenario';
import { crashScenarios, selectionFromEnv } from './support/scenarios';
import { summaryLine } from './support/report';
import { scaled } from '../support/time-scale';

const selection = selectionFromEnv(process.env);
const scenarios = crashScenarios(selection);
const parallel = Math.max(1, Number(process.env.CRASH_PARALLEL ?? 5));
const keepDirs = process.env.CRASH_KEEP === '1';

describe(`crash injection with real processes (e2e; seed ${selection.seed}, ${scenarios.length} scenarios, ${parallel} at a time)`, () => {
  const outcomes = new Map<number, Promise<ScenarioOutcome>>();
  const finished: ScenarioOutcome[] = [];
  const started = Date.now();

  beforeAll(() => {
    // Every scenario starts here, `parallel` at a time; each test awaits its own.
    let next = 0;
    const slots: Array<() => void> = [];
    let running = 0;
    const release = () => {
      running -= 1;
      slots.shift()?.();
    };
    const acquire = () =>
      new Promise<void>((resolve) => {
        if (running < parallel) {
          running += 1;
          resolve();
        } else {
          slots.push(() => {
            running += 1;
            resolve();
          });
        }
      });
    for (const spec of scenarios) {
      const index = next;
      next += 1;
      outcomes.set(
        index,
        acquire().then(async () => {
          try {
            const outcome = await runScenario(spec, { keepDir: keepDirs });
            finished.push(outcome);
            process.stdout.write(`${summaryLine(outcome.report)}\n`);
            return outcome;
          } finally {
            release();
          }
        }),
      );
    }
  });

  afterAll(async () => {
    await Promise.allSettled([...outcomes.values()]);
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
      seed: selection.seed,
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
        approvalsGranted: report.figures?.approvalsGranted,
        violations: report.violations.length + report.harnessErrors.length,
      })),
    };
    process.stdout.write(`crash figures: ${JSON.stringify(figures)}\n`);
    if (process.env.CRASH_FIGURES !== undefined && process.env.CRASH_FIGURES !== '') writeFileSync(process.env.CRASH_FIGURES, `${JSON.stringify(figures, null, 2)}\n`);
  }, scaled(60_000));

  scenarios.forEach((spec, index) => {
    it(`${spec.label}: every invariant holds after the crashes (seed ${spec.seed})`, async () => {
      const outcome = await (outcomes.get(index) as Promise<ScenarioOutcome>);
      if (outcome.failure !== '') throw new Error(outcome.failure);
      expect(outcome.report.violations).toEqual([]);
    }, scaled(3_600_000));
  });
});
