import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceConfig } from '../config/service-config';

/** What a service configuration file in the service's folder is called: `agent-ledger.yaml` (the starter's), `agent-ledger-pg.yml`, `agent-ledger.prod.json`, ... */
export const CONFIG_FILE_NAME = /^agent-ledger[^/]*\.(ya?ml|json)$/;

/**
 * The service configuration files in `cwd` ({@link CONFIG_FILE_NAME}) that a
 * store verb was not given (no `--config`, `AGENT_LEDGER_CONFIG` unset), in
 * name order; none when it was given one: when there are some, the stores
 * read from the environment and the defaults may not be the service's.
 */
export function unreadConfigFiles(config: Pick<ServiceConfig, 'configFile'>, cwd: string): string[] {
  if (config.configFile !== null) return [];
  let names: string[];
  try {
    names = readdirSync(cwd);
  } catch {
    return []; // a folder that cannot be listed holds nothing this can point at
  }
  return names
    .filter((name) => CONFIG_FILE_NAME.test(name))
    .sort()
    .map((name) => join(cwd, name));
}
