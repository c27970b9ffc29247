/**
 * The crash scenarios on PostgreSQL: the service and two `agent-ledger
 * worker` processes on one private PostgreSQL cluster
 * (`POSTGRES_CONNECTION_STRING`, a schema per scenario), each process with a
 * data folder of its own, SIGKILLed at crash points and at random; every
 * invariant checked as on the embedded store (the events read from
 * PostgreSQL). A subset of the templates, sized for CI
 * (`POSTGRES_TEMPLATES` in support/scenarios.ts). See test/crash/README.md.
 *
 * The same variables as the embedded store's file select and size it
 * (`CRASH_SCENARIOS`, `CRASH_SEED`, `CRASH_ONLY` among the PostgreSQL
 * templates, `CRASH_PARALLEL`, `CRASH_KEEP`); `CRASH_PG_FIGURES=<file>`
 * writes its figures.
 */
import type { PostgresTestServer } from '../support/postgres';
import { startPostgresTestServer } from '../support/postgres';
import { crashScenarios, POSTGRES_TEMPLATES, selectionFromEnv } from './support/scenarios';
import { describeCrashScenarios } from './support/suite';

const selection = selectionFromEnv(process.env, POSTGRES_TEMPLATES);
const scenarios = crashScenarios(selection, POSTGRES_TEMPLATES);
const parallel = Math.max(1, Number(process.env.CRASH_PARALLEL ?? 5));
let server: PostgresTestServer | null = null;

describeCrashScenarios({
  title: `crash injection with real processes on PostgreSQL (e2e; seed ${selection.seed}, ${scenarios.length} scenarios, ${parallel} at a time)`,
  scenarios,
  parallel,
  seed: selection.seed,
  figuresLabel: 'crash figures (PostgreSQL)',
  figuresFile: process.env.CRASH_PG_FIGURES === undefined || process.env.CRASH_PG_FIGURES === '' ? null : process.env.CRASH_PG_FIGURES,
  keepDirs: process.env.CRASH_KEEP === '1',
  setUp: async () => {
    server = await startPostgresTestServer();
    return { postgres: { connectionString: server.connectionString } };
  },
  tearDown: async () => {
    await server?.stop();
  },
});
