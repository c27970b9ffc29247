import { CONFIG_FILE_KEYS } from './config-file';
import { CRASH_TEST_SETTINGS } from './crash-test/crash-test-settings';

/** The variable that names the configuration file (YAML or JSON). */
export const CONFIG_FILE_SETTING = 'AGENT_LEDGER_CONFIG';

/**
 * Every environment variable the service's configuration reads: the settings
 * (each also a key of the configuration file), `AGENT_LEDGER_CONFIG`, the
 * test-only settings and `NODE_ENV` (which refuses them). The configuration
 * reader sees the environment only through {@link serviceEnvironmentOf}, so a
 * variable it reads is always in this list; a deployment (a compose file, a
 * unit file) can be checked against it.
 *
 * The variables that an agents file names for its providers' keys
 * (`apiKeyEnv`) are not here: the agents file, not the service, names them.
 */
export const SERVICE_ENVIRONMENT_VARIABLES = Object.freeze([...Object.values(CONFIG_FILE_KEYS), CONFIG_FILE_SETTING, ...CRASH_TEST_SETTINGS, 'NODE_ENV'] as const);

/** A variable of {@link SERVICE_ENVIRONMENT_VARIABLES}. */
export type ServiceEnvironmentVariable = (typeof SERVICE_ENVIRONMENT_VARIABLES)[number];

/** The part of an environment the service's configuration reads. */
export type ServiceEnvironment = Readonly<Partial<Record<ServiceEnvironmentVariable, string>>>;

/** The variables of {@link SERVICE_ENVIRONMENT_VARIABLES} that `env` sets, and no other. */
export function serviceEnvironmentOf(env: Readonly<Record<string, string | undefined>>): ServiceEnvironment {
  const known: Partial<Record<ServiceEnvironmentVariable, string>> = {};
  for (const name of SERVICE_ENVIRONMENT_VARIABLES) {
    const value = env[name];
    if (value !== undefined) known[name] = value;
  }
  return Object.freeze(known);
}
