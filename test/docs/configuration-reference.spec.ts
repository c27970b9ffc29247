/**
 * docs/configuration.md against the code: every variable the service and its
 * CLI read is in the reference and nothing else is (the configuration's list
 * of variables, the names the start-up warning knows, every `env.X` that
 * `apps/agent-ledger/src` reads), each with its configuration-file key
 * exactly as `CONFIG_FILE_KEYS` maps it; every integer range is the one the
 * reader enforces, every list of values the one it names, every default
 * written as a value the one it applies; the file example is a file the
 * reader takes. Reads files, and the configuration of an environment given
 * here: nothing is started.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS, InvalidFieldError, LEASE_SECONDS } from '@agent-ledger/domain';
import { CONFIG_FILE_KEYS, configValuesOf } from '../../apps/agent-ledger/src/config/config-file';
import { misspelledSettings } from '../../apps/agent-ledger/src/config/misspelled-settings';
import type { ServiceConfig } from '../../apps/agent-ledger/src/config/service-config';
import { resolveServiceConfig } from '../../apps/agent-ledger/src/config/service-config';
import { SERVICE_ENVIRONMENT_VARIABLES } from '../../apps/agent-ledger/src/config/service-environment';
import { DEFAULT_SERVICE_NAME } from '../../apps/agent-ledger/src/config/tracing';
import { API_KEY_ENV, URL_ENV } from '../../apps/agent-ledger/src/cli/service-client';

const root = join(__dirname, '..', '..');
const DOC = 'docs/configuration.md';
const markdown = readFileSync(join(root, DOC), 'utf8');

/** One row of a settings table: `| variable | file key | default | range | read by | what |`. */
interface Row {
  readonly line: number;
  readonly variable: string;
  /** The file key, or null for `—`. */
  readonly fileKey: string | null;
  readonly defaultCell: string;
  readonly range: string;
  readonly readBy: string;
}

const HEADER = '| variable | file key | default | range | read by | what |';

/** The rows of every settings table of the page (the tables with {@link HEADER}; other tables, such as "Not settings of agent-ledger", are not settings). */
function settingsRows(text: string): Row[] {
  const rows: Row[] = [];
  const lines = text.split('\n');
  let inTable = false;
  lines.forEach((line, index) => {
    if (line.trim() === HEADER) {
      inTable = true;
      return;
    }
    if (!inTable) return;
    if (!line.startsWith('|')) {
      inTable = false;
      return;
    }
    if (/^\|\s*-/.test(line)) return;
    const cells = line.slice(1, line.lastIndexOf('|')).split(' | ').map((cell) => cell.trim());
    if (cells.length !== 6) throw new Error(`${DOC}:${index + 1}: a settings row has ${cells.length} cells, not 6: ${line}`);
    const [variable, fileKey, defaultCell, range, readBy] = cells as [string, string, string, string, string, string];
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(variable)?.[1];
    if (name === undefined) throw new Error(`${DOC}:${index + 1}: the first cell names one variable in backquotes: ${variable}`);
    const key = fileKey === '—' ? null : /^`([A-Za-z.]+)`$/.exec(fileKey)?.[1];
    if (key === undefined) throw new Error(`${DOC}:${index + 1}: the file key is one key in backquotes, or —: ${fileKey}`);
    rows.push({ line: index + 1, variable: name, fileKey: key, defaultCell, range, readBy });
  });
  return rows;
}

/** Every variable that `apps/agent-ledger/src` (its code, not its tests) reads by name: `env.NAME`, `env['NAME']`, `process.env.NAME`. */
function variablesReadInSources(): Map<string, string> {
  const found = new Map<string, string>();
  const src = join(root, 'apps', 'agent-ledger', 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec|sim-spec)\.ts$/.test(f));
  for (const file of files) {
    const text = readFileSync(join(src, file), 'utf8');
    for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)\b|\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\])/g)) {
      const name = (match[1] ?? match[2]) as string;
      if (!found.has(name)) found.set(name, relative(root, join(src, file)));
    }
  }
  return found;
}

/** The names `misspelled-settings.ts` knows besides the service's settings (its `OTHER_KNOWN`, read from the file: it is not exported). */
function otherKnownOfTheWarning(): string[] {
  const text = readFileSync(join(root, 'apps', 'agent-ledger', 'src', 'config', 'misspelled-settings.ts'), 'utf8');
  const list = /const OTHER_KNOWN = \[([^\]]*)\]/.exec(text)?.[1];
  if (list === undefined) throw new Error('misspelled-settings.ts has no OTHER_KNOWN list: update this test');
  return [...list.matchAll(/'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1] as string);
}

const rows = settingsRows(markdown);
const documented = new Map(rows.map((row) => [row.variable, row]));
const cwd = tmpdir();

/** What a setting needs beside it to be read at all: the store it belongs to, the points a seed seeds. */
function prerequisitesOf(name: string): Record<string, string> {
  if (name.startsWith('EVENTSTORE_CONSUMER_GROUP')) return { EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false' };
  if (name.startsWith('POSTGRES_') && name !== 'POSTGRES_CONNECTION_STRING') return { POSTGRES_CONNECTION_STRING: 'postgresql://agent_ledger@localhost:5432/agent_ledger' };
  if (name === 'AGENT_LEDGER_CRASH_SEED') return { AGENT_LEDGER_CRASH_POINTS: 'afterWriteFence' };
  return {};
}

/** The configuration of `env`, with the run policy's values where the configuration leaves them to the policy (undefined). */
function configOf(env: Record<string, string>): ServiceConfig {
  const config = resolveServiceConfig(env, null, cwd);
  return {
    ...config,
    leaseSeconds: config.leaseSeconds ?? LEASE_SECONDS,
    backoffBaseSeconds: config.backoffBaseSeconds ?? BACKOFF_BASE_SECONDS,
    backoffCapSeconds: config.backoffCapSeconds ?? BACKOFF_CAP_SECONDS,
  };
}

/** The error the configuration of `env` throws (it must throw one). */
function refusalOf(env: Record<string, string>): InvalidFieldError {
  try {
    resolveServiceConfig(env, null, cwd);
  } catch (error) {
    if (error instanceof InvalidFieldError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe(`${DOC}: the reference of every setting`, () => {
  it('has the settings tables, one row per variable', () => {
    expect(rows.length).toBeGreaterThan(40);
    const twice = rows.filter((row, i) => rows.findIndex((other) => other.variable === row.variable) !== i);
    expect(twice.map((row) => `${DOC}:${row.line} ${row.variable}`)).toEqual([]);
  });

  it("lists every variable the code reads: the configuration's, the CLI's, the start-up warning's, every env.NAME of apps/agent-ledger/src", () => {
    const known = new Map<string, string>();
    for (const name of SERVICE_ENVIRONMENT_VARIABLES) known.set(name, 'SERVICE_ENVIRONMENT_VARIABLES (service-environment.ts)');
    for (const name of [URL_ENV, API_KEY_ENV]) known.set(name, 'the CLI (cli/service-client.ts)');
    for (const name of otherKnownOfTheWarning()) known.set(name, 'OTHER_KNOWN (misspelled-settings.ts)');
    for (const [name, file] of variablesReadInSources()) if (!known.has(name)) known.set(name, file);
    const missing = [...known].filter(([name]) => !documented.has(name)).map(([name, where]) => `${name} (read by ${where})`);
    expect(missing).toEqual([]);
  });

  it('lists no variable the code does not read', () => {
    const read = new Set<string>([...SERVICE_ENVIRONMENT_VARIABLES, URL_ENV, API_KEY_ENV, ...variablesReadInSources().keys()]);
    expect(rows.filter((row) => !read.has(row.variable)).map((row) => `${DOC}:${row.line} ${row.variable}`)).toEqual([]);
  });

  it("gives each variable its configuration-file key as CONFIG_FILE_KEYS maps it, and — for a variable without one", () => {
    const keyOf = new Map<string, string>(Object.entries(CONFIG_FILE_KEYS).map(([key, name]) => [name, key]));
    const wrong = rows.filter((row) => row.fileKey !== (keyOf.get(row.variable) ?? null)).map((row) => `${DOC}:${row.line} ${row.variable}: ${row.fileKey ?? '—'}, the code: ${keyOf.get(row.variable) ?? '—'}`);
    expect(wrong).toEqual([]);
    expect(Object.keys(CONFIG_FILE_KEYS).filter((key) => !rows.some((row) => row.fileKey === key))).toEqual([]);
  });

  it('names no variable that the start-up warning would take for a misspelling', () => {
    const env = Object.fromEntries(rows.map((row) => [row.variable, 'x']));
    expect(misspelledSettings(env)).toEqual([]);
  });

  it('gives each integer range as the configuration enforces it: the values just outside are refused, naming the bounds', () => {
    const ranged = rows.filter((row) => /^\d+ to \d+$/.test(row.range) && SERVICE_ENVIRONMENT_VARIABLES.includes(row.variable as never));
    expect(ranged.length).toBeGreaterThanOrEqual(15);
    const wrong: string[] = [];
    for (const row of ranged) {
      const [min, max] = row.range.split(' to ').map(Number) as [number, number];
      const outside = [max + 1, ...(min > 0 ? [min - 1] : [])];
      for (const value of outside) {
        const refusal = refusalOf({ ...prerequisitesOf(row.variable), [row.variable]: String(value) });
        if (!refusal.message.startsWith(`${row.variable} must be an integer from ${min} to ${max} `)) wrong.push(`${DOC}:${row.line} ${row.variable}=${value}: ${refusal.message}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives each list of values as the configuration names it', () => {
    const listed = rows.filter((row) => /^`[^`]+`(, `[^`]+`)+$/.test(row.range));
    expect(listed.map((row) => row.variable).sort()).toEqual(['AUTH_MODE', 'LOG_FORMAT', 'POSTGRES_TLS_REJECT_UNAUTHORIZED', 'READ_MODELS_ON_STORE_MISMATCH']);
    const wrong: string[] = [];
    for (const row of listed) {
      const values = [...row.range.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
      const refusal = refusalOf({ ...prerequisitesOf(row.variable), [row.variable]: 'not-a-value' });
      const named = /must be one of (.*) \(got/.exec(refusal.message)?.[1]?.split(', ') ?? /must be (\w+) or (\w+)/.exec(refusal.message)?.slice(1, 3) ?? [];
      if (JSON.stringify(named) !== JSON.stringify(values)) wrong.push(`${DOC}:${row.line} ${row.variable}: ${values.join(', ')}; the code: ${refusal.message}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives each default written as a value as the one the configuration applies: setting it changes nothing', () => {
    // A value, not a pattern such as `<data dir>/workspace`.
    const literal = rows.filter((row) => /^`[^`<]+`$/.test(row.defaultCell));
    const wrong: string[] = [];
    for (const row of literal) {
      const value = row.defaultCell.slice(1, -1);
      if (row.variable === 'OTEL_SERVICE_NAME') {
        if (value !== DEFAULT_SERVICE_NAME) wrong.push(`${DOC}:${row.line} ${row.variable}: ${value}, the code: ${DEFAULT_SERVICE_NAME}`);
        continue;
      }
      if (!SERVICE_ENVIRONMENT_VARIABLES.includes(row.variable as never)) {
        wrong.push(`${DOC}:${row.line} ${row.variable}: a default written as a value that this test cannot check`);
        continue;
      }
      const base = prerequisitesOf(row.variable);
      expect({ [row.variable]: configOf({ ...base, [row.variable]: value }) }).toEqual({ [row.variable]: configOf(base) });
    }
    expect(literal.length).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  });

  it('has an example of a configuration file that the reader takes, setting a key of every section', () => {
    const block = /## The configuration file[\s\S]*?```yaml\n([\s\S]*?)```/.exec(markdown)?.[1];
    if (block === undefined) throw new Error(`${DOC} has no yaml block under "## The configuration file"`);
    const values = configValuesOf(parse(block) as unknown, DOC);
    const sections = new Set(Object.keys(CONFIG_FILE_KEYS).map((key) => key.split('.')[0]));
    expect([...sections].filter((section) => ![...values.keys()].some((key) => key.split('.')[0] === section))).toEqual([]);
  });

  it('can fail: a row that names a variable nobody reads, or gives another file key, is seen', () => {
    const broken = settingsRows(`${HEADER}\n| --- | --- | --- | --- | --- | --- |\n| \`AGENT_LEDGER_DATADIR\` | \`store.dataDir\` | \`./data\` | a folder | serve | typo |\n`);
    expect(broken).toEqual([{ line: 3, variable: 'AGENT_LEDGER_DATADIR', fileKey: 'store.dataDir', defaultCell: '`./data`', range: 'a folder', readBy: 'serve' }]);
    expect(misspelledSettings({ AGENT_LEDGER_DATADIR: 'x' })).toEqual([{ name: 'AGENT_LEDGER_DATADIR', closest: 'AGENT_LEDGER_DATA_DIR' }]);
  });
});
