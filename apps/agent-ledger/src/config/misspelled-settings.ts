import { WORKER_PROCESS_ENV } from '@agent-ledger/runtime/settings';
import { SERVICE_ENVIRONMENT_VARIABLES } from './service-environment';

/** Variables of agent-ledger's that are not the service's settings: the CLI's own, and the one a supervised worker process is started with. */
const OTHER_KNOWN = ['AGENT_LEDGER_URL', 'AGENT_LEDGER_API_KEY', WORKER_PROCESS_ENV];

/** The settings' families: the first word of every multi-word setting (`WORKER` of `WORKER_CONCURRENCY`), but the generic `NODE`. */
const FAMILIES = new Set(
  SERVICE_ENVIRONMENT_VARIABLES.filter((name) => name.includes('_') && !name.startsWith('NODE_')).map((name) => name.split('_')[0] as string),
);

/** A variable that looks like one of the service's settings but is none, and the setting it most likely meant. */
export interface MisspelledSetting {
  readonly name: string;
  readonly closest: string;
}

/**
 * The variables of `env` that look like a setting of the service and are not
 * one (`AGENT_LEDGER_DATADIR`, `WORKER_CONCURENCY`): named `AGENT_LEDGER_*`,
 * or of a setting's family (`WORKER_*`, `POSTGRES_*`, ...) and a few edits
 * from a setting. They are ignored, as every variable the service does not
 * read; `serve` and `worker` warn about them at start, naming the closest
 * setting, as the configuration file refuses an unknown key.
 */
export function misspelledSettings(env: Readonly<Record<string, string | undefined>>): MisspelledSetting[] {
  const known = new Set<string>([...SERVICE_ENVIRONMENT_VARIABLES, ...OTHER_KNOWN]);
  const found: MisspelledSetting[] = [];
  for (const name of Object.keys(env).sort()) {
    if (known.has(name) || env[name] === undefined) continue;
    const family = name.split('_')[0] as string;
    if (!name.startsWith('AGENT_LEDGER_') && !FAMILIES.has(family)) continue;
    const [closest, distance] = closestSetting(name);
    if (name.startsWith('AGENT_LEDGER_') || distance <= Math.max(2, Math.floor(name.length / 6))) found.push({ name, closest });
  }
  return found;
}

/** The warning for one such variable. */
export function misspelledSettingWarning(setting: MisspelledSetting): string {
  return `the environment variable ${setting.name} is not a setting of agent-ledger and is ignored; did you mean ${setting.closest}?`;
}

function closestSetting(name: string): [string, number] {
  let best: [string, number] = ['', Infinity];
  for (const setting of SERVICE_ENVIRONMENT_VARIABLES) {
    const distance = editDistance(name, setting);
    if (distance < best[1]) best = [setting, distance];
  }
  return best;
}

/** Levenshtein's distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
