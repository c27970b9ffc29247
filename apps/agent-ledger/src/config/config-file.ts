import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InvalidFieldError } from '@agent-ledger/domain';

/**
 * The settings a configuration file may hold, by their dotted key (a key
 * without a dot is a top-level setting: `plugins`), with the environment
 * variable each one mirrors. The environment wins over the file.
 */
export const CONFIG_FILE_KEYS = {
  'server.port': 'PORT',
  'server.host': 'HOST',
  'server.bodyLimitBytes': 'HTTP_BODY_LIMIT_BYTES',
  'server.sseHeartbeatMs': 'SSE_HEARTBEAT_MS',
  'server.readyMaxProjectionLag': 'READY_MAX_PROJECTION_LAG',
  'store.dataDir': 'AGENT_LEDGER_DATA_DIR',
  'store.path': 'EVENT_STORE_PATH',
  'store.connectionString': 'EVENTSTORE_CONNECTION_STRING',
  'store.postgresConnectionString': 'POSTGRES_CONNECTION_STRING',
  'store.postgresSchema': 'POSTGRES_SCHEMA',
  'store.postgresPoolSize': 'POSTGRES_POOL_SIZE',
  'store.postgresTlsCaFile': 'POSTGRES_TLS_CA_FILE',
  'store.postgresTlsCertFile': 'POSTGRES_TLS_CERT_FILE',
  'store.postgresTlsKeyFile': 'POSTGRES_TLS_KEY_FILE',
  'store.postgresTlsRejectUnauthorized': 'POSTGRES_TLS_REJECT_UNAUTHORIZED',
  'store.consumerGroup': 'EVENTSTORE_CONSUMER_GROUP',
  'store.consumerGroupMessageTimeoutMs': 'EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS',
  'store.consumerGroupMaxRetryCount': 'EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT',
  'store.consumerGroupSweepAfterMs': 'EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS',
  'store.busyTimeoutMs': 'STORE_BUSY_TIMEOUT_MS',
  'store.readModelsOnMismatch': 'READ_MODELS_ON_STORE_MISMATCH',
  'audit.storePath': 'AUDIT_STORE_PATH',
  'audit.gapGraceMs': 'AUDIT_GAP_GRACE_MS',
  'agents.configFile': 'AGENTS_CONFIG',
  'tools.workspaceDir': 'WORKSPACE_DIR',
  'workers.concurrency': 'WORKER_CONCURRENCY',
  'workers.processes': 'WORKER_PROCESSES',
  'workers.reaperIntervalMs': 'REAPER_INTERVAL_MS',
  'runs.leaseSeconds': 'LEASE_SECONDS',
  'runs.backoffBaseSeconds': 'BACKOFF_BASE_SECONDS',
  'runs.backoffCapSeconds': 'BACKOFF_CAP_SECONDS',
  'auth.mode': 'AUTH_MODE',
  'auth.apiKeys': 'API_KEYS',
  'console.dir': 'CONSOLE_DIR',
  'logging.format': 'LOG_FORMAT',
  plugins: 'AGENT_LEDGER_PLUGINS',
} as const;

/**
 * The top-level settings that only a configuration file holds: no
 * environment variable mirrors them (a list of structured entries).
 * `mcpServers`: the MCP servers bound to the service.
 */
export const CONFIG_FILE_ONLY_KEYS = ['mcpServers'] as const;

/** A dotted key of {@link CONFIG_FILE_KEYS}. */
export type ConfigFileKey = keyof typeof CONFIG_FILE_KEYS;

/** A setting of a configuration file: a key of {@link CONFIG_FILE_KEYS} or of {@link CONFIG_FILE_ONLY_KEYS}. */
export type ConfigFileSetting = ConfigFileKey | (typeof CONFIG_FILE_ONLY_KEYS)[number];

/** A configuration file, read and checked for unknown keys. */
export interface ConfigFile {
  /** Its absolute path. */
  readonly path: string;
  /** Its folder: relative paths in the file are resolved from here. */
  readonly dir: string;
  /** The values it sets, by dotted key (not yet checked: each setting checks its own). */
  readonly values: ReadonlyMap<ConfigFileSetting, unknown>;
}

const SECTIONS = new Set(Object.keys(CONFIG_FILE_KEYS).filter((key) => key.includes('.')).map((key) => key.split('.')[0] as string));
const TOP_LEVEL = new Set([...Object.keys(CONFIG_FILE_KEYS).filter((key) => !key.includes('.')), ...CONFIG_FILE_ONLY_KEYS]);

/**
 * Reads a configuration file: YAML, or JSON (YAML is a superset of it), one
 * object of sections (`server`, `store`, `audit`, `agents`, `tools`,
 * `workers`, `runs`, `auth`, `console`, `logging`) and top-level settings
 * (`plugins`, and `mcpServers`, which only a file holds).
 *
 * @throws InvalidFieldError naming `AGENT_LEDGER_CONFIG` when the file cannot be read or parsed,
 *   and naming the dotted key (`server.prot`) of an unknown setting.
 */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidFieldError('AGENT_LEDGER_CONFIG', `names a file that cannot be read: ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let document: unknown;
  try {
    document = parseYaml(text, { prettyErrors: false });
  } catch (error) {
    throw new InvalidFieldError('AGENT_LEDGER_CONFIG', `names a file that is not valid YAML or JSON: ${path} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  return { path, dir: dirname(path), values: configValuesOf(document ?? {}, path) };
}

/**
 * The settings of a parsed configuration document, by dotted key.
 * @throws InvalidFieldError naming the dotted key of an unknown setting or a section that is not an object
 */
export function configValuesOf(document: unknown, path: string): Map<ConfigFileSetting, unknown> {
  const where = `in config file ${path}`;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new InvalidFieldError('AGENT_LEDGER_CONFIG', `names a file whose content is not an object of sections (${path})`);
  }
  const values = new Map<ConfigFileSetting, unknown>();
  for (const [section, body] of Object.entries(document as Record<string, unknown>)) {
    if (TOP_LEVEL.has(section)) {
      if (body !== null && body !== undefined) values.set(section as ConfigFileSetting, body);
      continue;
    }
    if (!SECTIONS.has(section)) throw new InvalidFieldError(section, `${where} is not a setting (known: ${[...SECTIONS, ...TOP_LEVEL].join(', ')})`);
    if (body === null || body === undefined) continue;
    if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidFieldError(section, `${where} must be an object of settings`);
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      const key = `${section}.${name}`;
      if (!(key in CONFIG_FILE_KEYS)) {
        const known = Object.keys(CONFIG_FILE_KEYS).filter((k) => k.startsWith(`${section}.`));
        throw new InvalidFieldError(key, `${where} is not a setting (known: ${known.join(', ')})`);
      }
      if (value !== null && value !== undefined) values.set(key as ConfigFileKey, value);
    }
  }
  return values;
}
