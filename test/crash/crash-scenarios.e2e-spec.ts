/**
 * Crash injection with real processes (issue 8): the service and extra
 * `worker` processes as children, a mixed workload, SIGKILLs at the named
 * crash points and at random moments, restarts, the settle phase, and every
 * guarantee of docs/guarantees.md checked from the stores, the read
 * models and the execution ledger. See test/crash/README.md.
 *
 * `npm test` runs one scenario per template (8 named points, 3 random),
 * `CRASH_PARALLEL` (default 6) at a time. The long version:
 * `CRASH_SCENARIOS=200 CI=true npx jest test/crash`.
 */
import { crashScenarios, selectionFromEnv } from './support/scenarios';
import { describeCrashScenarios } from './support/suite';

const selection = selectionFromEnv(process.env);
const scenarios = crashScenarios(selection);
// Two waves at most by default (11 templates: 6, then 5): a scenario mostly waits on leases, so the wall time is the waves'.
const parallel = Math.max(1, Number(process.env.CRASH_PARALLEL ?? Math.min(6, Math.max(5, Math.ceil(scenarios.length / 2)))));

describeCrashScenarios({
  title: `crash injection with real processes (e2e; seed ${selection.seed}, ${scenarios.length} scenarios, ${parallel} at a time)`,
  scenarios,
  parallel,
  seed: selection.seed,
  figuresLabel: 'crash figures',
  figuresFile: process.env.CRASH_FIGURES === undefined || process.env.CRASH_FIGURES === '' ? null : process.env.CRASH_FIGURES,
  keepDirs: process.env.CRASH_KEEP === '1',
});
