import { existsSync } from 'node:fs';
import type { ServiceConfig } from '../config/service-config';
import { ServiceFailureError } from './service-client';
import { unreadConfigFiles } from './unread-config-file';

/**
 * Refuses, before anything is opened, a verb that reads the service's stores
 * (`projections rebuild`, `audit review`, `audit verify`) when the embedded
 * run store of the configuration does not exist: run from another folder
 * than the service's, `./data` names a folder the service never wrote, and
 * opening it would create an empty store and report on nothing ("no
 * finding"). EventStoreDB and PostgreSQL (no file) are not checked.
 *
 * @throws {@link ServiceFailureError} (exit 3) naming the file, the folder it was resolved from and the settings to use
 */
export function requireExistingRunStore(config: ServiceConfig, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): void {
  const path = config.eventStorePath;
  if (path === null || existsSync(path)) return;
  const from =
    env.EVENT_STORE_PATH !== undefined && env.EVENT_STORE_PATH.trim() !== ''
      ? 'EVENT_STORE_PATH'
      : env.AGENT_LEDGER_DATA_DIR !== undefined && env.AGENT_LEDGER_DATA_DIR.trim() !== ''
        ? 'AGENT_LEDGER_DATA_DIR'
        : env.AGENT_LEDGER_CONFIG !== undefined && env.AGENT_LEDGER_CONFIG.trim() !== ''
          ? `the configuration file ${env.AGENT_LEDGER_CONFIG}`
          : `the default data folder ./data of the current folder ${cwd}`;
  const unread = unreadConfigFiles(config, cwd);
  throw new ServiceFailureError(
    `no event store at ${path} (from ${from}): this command reads the stores the service writes. ` +
      (unread.length === 0 ? '' : `${unread.join(', ')} ${unread.length === 1 ? 'was' : 'were'} not read: give the service's with --config ${unread[0]}. `) +
      'Run it in the folder the service runs in, with its --config file, or set AGENT_LEDGER_DATA_DIR (or EVENT_STORE_PATH, AGENT_LEDGER_CONFIG) as the service has it. Nothing was created.',
  );
}
