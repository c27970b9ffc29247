/**
 * Jest `setupFiles` of every tier: the service's own settings are removed from
 * the environment each test file sees (and passes on to the services and CLIs
 * it starts with `{ ...process.env, ... }`), so that a `PORT`, `API_KEYS` or
 * `AGENT_LEDGER_DATA_DIR` exported in the shell that runs `npm test` (or by
 * a service started beside it) never reaches a test: each test sets what it
 * means. `EVENTSTORE_CONNECTION_STRING` is kept: it is how a developer points
 * the real-EventStoreDB tests at a server, and the tests that start a service
 * set it themselves.
 */
import { CONFIG_FILE_KEYS } from '../../apps/agent-ledger/src/config/config-file';

/** The variables removed: every setting of the configuration file, and those read from the environment only. */
export const SERVICE_ENVIRONMENT: readonly string[] = [
  ...Object.values(CONFIG_FILE_KEYS).filter((name) => name !== 'EVENTSTORE_CONNECTION_STRING'),
  'AGENT_LEDGER_CONFIG',
  'AGENT_LEDGER_URL',
  'AGENT_LEDGER_API_KEY',
  'AGENT_LEDGER_CRASH_POINTS',
  'AGENT_LEDGER_CRASH_SEED',
  'AGENT_LEDGER_TEST_LEDGER',
  'AGENT_LEDGER_WORKER_PROCESS',
];

for (const name of SERVICE_ENVIRONMENT) delete process.env[name];
