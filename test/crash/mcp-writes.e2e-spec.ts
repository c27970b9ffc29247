/**
 * The crash tier kills the service during an MCP write (issue 28 §3): the
 * crash scenarios' harness (test/crash/support) with a workload whose every
 * write is a call of the tests' MCP server bound in the agents file (`m.count`,
 * an `IDEMPOTENT_WRITE`; `m.append`, `NON_IDEMPOTENT_WRITE` by default), the
 * service and a `worker` process SIGKILLed with a call fenced and not sent,
 * in the middle of the call (the server kills its client after executing it),
 * with the answer in hand and nothing recorded, and before the audit; the
 * server's own count of its executions (COUNT_FILE, by idempotency key) is the
 * execution ledger. Checks invariants 1 to 8, plus the MCP path's own: an
 * `append` executed at most once and its run dead-lettered when one was in
 * flight, a `count` retried with the step's key and its run completed
 * (support/mcp-workload.ts). The PostgreSQL variant is
 * mcp-writes-postgres.e2e-spec.ts. See test/crash/README.md.
 *
 * The same variables as crash-scenarios.e2e-spec.ts (`CRASH_SCENARIOS`,
 * `CRASH_SEED`, `CRASH_ONLY` among MCP_TEMPLATES, `CRASH_PARALLEL`,
 * `CRASH_KEEP`; `CRASH_QUEUED_RUNS` 6 and `CRASH_INTERACTIVE_RUNS` 2 by
 * default); `CRASH_MCP_FIGURES=<file>` writes its figures.
 */
import { crashScenarios, MCP_TEMPLATES, selectionFromEnv } from './support/scenarios';
import { describeCrashScenarios } from './support/suite';

const selection = selectionFromEnv(process.env, MCP_TEMPLATES, { queuedRuns: 6, interactiveRuns: 2 });
const scenarios = crashScenarios(selection, MCP_TEMPLATES);
const parallel = Math.max(1, Number(process.env.CRASH_PARALLEL ?? 4));

describeCrashScenarios({
  title: `crash injection during MCP writes (e2e; seed ${selection.seed}, ${scenarios.length} scenarios, ${parallel} at a time)`,
  scenarios,
  parallel,
  seed: selection.seed,
  figuresLabel: 'crash figures (MCP writes)',
  figuresFile: process.env.CRASH_MCP_FIGURES === undefined || process.env.CRASH_MCP_FIGURES === '' ? null : process.env.CRASH_MCP_FIGURES,
  keepDirs: process.env.CRASH_KEEP === '1',
});
