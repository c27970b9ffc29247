/**
 * The crash scenarios of MCP writes (mcp-writes.e2e-spec.ts) on PostgreSQL:
 * the service and two `worker` processes on one private PostgreSQL cluster
 * (a schema per scenario), each process with a data folder and MCP servers of
 * its own, SIGKILLed with an MCP call fenced and not sent, in the middle of
 * the call, and with its answer in hand and nothing recorded
 * (MCP_POSTGRES_TEMPLATES: a step's records go in one commit there, so
 * `beforeAudit` is not reached); every invariant and the MCP checks as on the
 * embedded store. See test/crash/README.md.
 *
 * `CRASH_MCP_PG_FIGURES=<file>` writes its figures; the other variables as in
 * mcp-writes.e2e-spec.ts.
 */
import type { PostgresTestServer } from '../support/postgres';
import { startPostgresTestServer } from '../support/postgres';
import { crashScenarios, MCP_POSTGRES_TEMPLATES, selectionFromEnv } from './support/scenarios';
import { describeCrashScenarios } from './support/suite';

const selection = selectionFromEnv(process.env, MCP_POSTGRES_TEMPLATES, { queuedRuns: 6, interactiveRuns: 2 });
const scenarios = crashScenarios(selection, MCP_POSTGRES_TEMPLATES);
const parallel = Math.max(1, Number(process.env.CRASH_PARALLEL ?? 3));
let server: PostgresTestServer | null = null;

describeCrashScenarios({
  title: `crash injection during MCP writes on PostgreSQL (e2e; seed ${selection.seed}, ${scenarios.length} scenarios, ${parallel} at a time)`,
  scenarios,
  parallel,
  seed: selection.seed,
  figuresLabel: 'crash figures (MCP writes, PostgreSQL)',
  figuresFile: process.env.CRASH_MCP_PG_FIGURES === undefined || process.env.CRASH_MCP_PG_FIGURES === '' ? null : process.env.CRASH_MCP_PG_FIGURES,
  keepDirs: process.env.CRASH_KEEP === '1',
  setUp: async () => {
    server = await startPostgresTestServer();
    return { postgres: { connectionString: server.connectionString } };
  },
  tearDown: async () => {
    await server?.stop();
  },
});
