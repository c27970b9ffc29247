import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { InvalidFieldError } from '@agent-ledger/domain';
import type { PostgresTlsOptions } from '@agent-ledger/event-store';
import { DEFAULT_POSTGRES_SCHEMA, isConsumerGroupName, isPostgresSchemaName, postgresTlsParameterOf } from '@agent-ledger/event-store';
import type { McpServerBinding, ResolvedConsumerGroupOptions } from '@agent-ledger/runtime/settings';
import {
  CONSUMER_GROUP_LIMITS,
  ConfigReader,
  DEFAULT_CONSUMER_GROUP,
  formatConfigIssue,
  MAX_WORKER_PROCESSES,
  resolveWorkerProcessCount,
  validateMcpServerBindings,
} from '@agent-ledger/runtime/settings';
import type { ApiKeyEntry, AuthMode, AuthSettings, HttpApiOptions } from '@agent-ledger/http/settings';
import { AUTH_MODES, builtConsoleDir, parseApiKeyEntries } from '@agent-ledger/http/settings';
import type { StoreMismatchPolicy } from '@agent-ledger/projections/settings';
import { STORE_MISMATCH_POLICIES } from '@agent-ledger/projections/settings';
import type { ConfigFile, ConfigFileKey } from './config-file';
import { CONFIG_FILE_KEYS, readConfigFile } from './config-file';
import type { CrashPointsSetting } from './crash-test/crash-test-settings';
import { readCrashTestConfig } from './crash-test/crash-test-settings';
import type { ServiceEnvironment } from './service-environment';
import { serviceEnvironmentOf } from './service-environment';

/** The values of `LOG_FORMAT`. */
export const LOG_FORMATS = ['text', 'json'] as const;

/** How the service writes its logs: {@link ServiceConfig.logFormat}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The service's settings, read from the environment and an optional configuration file (`AGENT_LEDGER_CONFIG`). */
export interface ServiceConfig extends HttpApiOptions {
  /** `PORT`. @default 3000 */
  readonly port: number;
  /**
   * `HOST`: the address HTTP binds to. Set `0.0.0.0` (or `::`) to accept
   * connections from other machines; API keys are then required.
   * @default 127.0.0.1 (this machine only)
   */
  readonly host: string;
  /** `AGENT_LEDGER_DATA_DIR`: where the embedded stores and the tools' workspace live. @default ./data */
  readonly dataDir: string;
  /** `EVENT_STORE_PATH`: the embedded store's file; null when EventStoreDB or PostgreSQL is used. @default <dataDir>/agent-ledger.sqlite */
  readonly eventStorePath: string | null;
  /** `EVENTSTORE_CONNECTION_STRING`: use EventStoreDB instead of the embedded store. */
  readonly eventStoreConnectionString: string | null;
  /**
   * `POSTGRES_CONNECTION_STRING` and its settings: use PostgreSQL instead of
   * the embedded store. Null when it is not set (and then no `POSTGRES_*`
   * setting may be). The read models, the processors' database, the
   * audit-gap saga's ledger and `AUDIT_STORE_PATH` stay embedded files in
   * `AGENT_LEDGER_DATA_DIR`, one set per process.
   * @default null
   */
  readonly postgres: PostgresSettings | null;
  /**
   * On EventStoreDB, the consumer group that offers each runnable run to one
   * worker process: `EVENTSTORE_CONSUMER_GROUP` (its name, or `none` for every
   * worker process racing for every due run),
   * `EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS`,
   * `EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT`,
   * `EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS`. Null on the embedded store
   * and on PostgreSQL (no consumer groups there: the worker processes race for
   * each due run, the claim fencing them; these settings are then refused).
   * @default { name: 'agent-ledger-workers', messageTimeoutMs: 30000, maxRetryCount: 10, sweepAfterMs: 30000 }
   */
  readonly consumerGroup: ResolvedConsumerGroupOptions | false | null;
  /**
   * `STORE_BUSY_TIMEOUT_MS`: how long an append to an embedded store (the run
   * store's file, the audit store's file) waits for another process's write
   * lock before it is refused (`StoreUnavailableError`, busy). better-sqlite3
   * is synchronous: the whole process waits that long, so keep it short
   * where another process may hold the lock for long. @default 5000
   */
  readonly storeBusyTimeoutMs: number;
  /**
   * `READ_MODELS_ON_STORE_MISMATCH`: what to do at start-up when the read
   * models (`<dataDir>/read-models.sqlite`) or the audit-gap saga's ledger
   * (`<dataDir>/audit-gap-saga.sqlite`) were made from another event store
   * than the configured one (each records the identity of the stores it
   * follows): `refuse` to start, naming the files and the fix, or `rebuild`
   * the read models (and reset the saga's ledger) from the configured stores,
   * logged. @default refuse
   */
  readonly readModelsOnStoreMismatch: StoreMismatchPolicy;
  /** `AUDIT_STORE_PATH`: put the audit streams in an embedded file of their own. @default null (the run store) */
  readonly auditStorePath: string | null;
  /**
   * `AGENTS_CONFIG`: the agents file (agents and their model providers), or
   * null for none (agents only from plugins).
   * @default `config/agents.example.yaml` under the working directory when that file exists, else null
   */
  readonly agentsConfigPath: string | null;
  /** `WORKSPACE_DIR`: the folder the built-in file tools are confined to. @default <dataDir>/workspace */
  readonly workspaceDir: string;
  /**
   * `LOG_FORMAT`: `text`, Nest's log lines, coloured only on a terminal and
   * never with `NO_COLOR` set; or `json`, one JSON object a line, for log
   * collectors. @default text
   */
  readonly logFormat: LogFormat;
  /** `WORKER_CONCURRENCY`: segments this process executes at once; 0 for none. @default 4 */
  readonly workerConcurrency: number;
  /**
   * `WORKER_PROCESSES`: worker processes `serve` and `worker` start and
   * supervise, each with `WORKER_CONCURRENCY` workers, so that the service uses
   * the machine's cores: `auto` for one fewer than the cores (none on one
   * core), or 0 to 64; 0 keeps everything in one process. Resolved here to a
   * number. @default auto
   */
  readonly workerProcesses: number;
  /** `LEASE_SECONDS`: lease length. @default 900 (the run policy's) */
  readonly leaseSeconds: number | undefined;
  /** `BACKOFF_BASE_SECONDS`: wait before the first retry, doubled for each further one. @default 30 (the run policy's) */
  readonly backoffBaseSeconds: number | undefined;
  /** `BACKOFF_CAP_SECONDS`: the longest wait before a retry. @default 600 (the run policy's) */
  readonly backoffCapSeconds: number | undefined;
  /** `REAPER_INTERVAL_MS`; 0 disables the reaper in this process. @default 30000 */
  readonly reaperIntervalMs: number;
  /** `AUDIT_GAP_GRACE_MS`: how long a write's audit may take before the saga fails its run. @default 60000 */
  readonly auditGapGraceMs: number;
  /** `HTTP_BODY_LIMIT_BYTES`: the largest request body accepted; a larger one is refused with 413. @default 262144 (256 KiB) */
  readonly httpBodyLimitBytes: number;
  /** `SSE_HEARTBEAT_MS`: how often an idle event stream sends a comment line, so proxies keep it open. @default 15000 */
  readonly sseHeartbeatMs: number;
  /**
   * `READY_MAX_PROJECTION_LAG`: `GET /ready` answers 503 when a projection is
   * this many events (or more) behind its source's head.
   * @default 1000
   */
  readonly readyMaxProjectionLag: number;
  /** `AUTH_MODE` and `API_KEYS`. */
  readonly auth: AuthSettings;
  /**
   * `CONSOLE_DIR`: the folder of the built console (`index.html`, `assets/`),
   * served under `/console/`. A folder without `index.html` is not an error:
   * the service starts, warns once, and `/console/` answers 404 `CONSOLE_NOT_BUILT`.
   * @default the console's build in `@agent-ledger/http` (`libs/http/console` here, `node_modules/@agent-ledger/http/console` when installed)
   */
  readonly consoleDir: string;
  /**
   * `AGENT_LEDGER_PLUGINS` (comma-separated, relative to the working
   * directory) or the file's top-level `plugins` (a list, relative to the
   * file's folder): the plugin modules loaded at start-up by `serve` and
   * `worker` (absolute paths, in order). @default [] (none)
   */
  readonly plugins: readonly string[];
  /**
   * The file's top-level `mcpServers` (no environment variable): the MCP
   * servers bound to the service, validated as the agents file's (`source`:
   * the file's path; relative paths from its folder). Their tools are known
   * to every agent. @default [] (none)
   */
  readonly mcpServers: readonly McpServerBinding[];
  /** `AGENT_LEDGER_CONFIG`: the configuration file read, if any (absolute). @default null */
  readonly configFile: string | null;
  /**
   * TEST ONLY, environment only: `AGENT_LEDGER_CRASH_POINTS` (and
   * `AGENT_LEDGER_CRASH_SEED`), the crash points at which `serve` and `worker`
   * kill themselves with SIGKILL, for the crash tests. Refused when
   * `NODE_ENV` is `production`. @default null (off)
   */
  readonly crashPoints: CrashPointsSetting | null;
  /**
   * TEST ONLY, environment only: `AGENT_LEDGER_TEST_LEDGER`, the file where
   * the `ledger.*` test tools record each real execution; setting it
   * registers those tools. Refused when `NODE_ENV` is `production`. @default null (off)
   */
  readonly testLedgerPath: string | null;
}

/** The PostgreSQL store's settings ({@link ServiceConfig.postgres}). */
export interface PostgresSettings {
  /** `POSTGRES_CONNECTION_STRING`, e.g. `postgresql://agent_ledger@db:5432/agent_ledger?sslmode=verify-full`. */
  readonly connectionString: string;
  /** `POSTGRES_SCHEMA`: the schema of the store's tables, a lower-case SQL identifier. @default agent_ledger */
  readonly schema: string;
  /** `POSTGRES_POOL_SIZE`: the most connections of this process's pool (one more listens for notifications). @default 10 */
  readonly poolSize: number;
  /**
   * TLS from the files named by `POSTGRES_TLS_CA_FILE`, `POSTGRES_TLS_CERT_FILE`
   * and `POSTGRES_TLS_KEY_FILE` (read at start-up, PEM) and
   * `POSTGRES_TLS_REJECT_UNAUTHORIZED` (`true` or `false`, default `true`);
   * null when none of them is set: then TLS is as the connection string says
   * (`sslmode`). They are refused with a connection string that has TLS
   * parameters (`sslmode`, `sslrootcert`...), which node-postgres would let
   * replace them.
   */
  readonly tls: PostgresTlsOptions | null;
}

type Env = Readonly<Record<string, string | undefined>>;
type SettingName = (typeof CONFIG_FILE_KEYS)[ConfigFileKey];

/** Where a setting's value came from, for messages and relative paths. */
interface Found {
  readonly value: unknown;
  /** The name to show: the variable, or the file's dotted key. */
  readonly field: string;
  /** `''`, or ` in config file <path>`. */
  readonly where: string;
  /** The folder relative paths are resolved from. */
  readonly baseDir: string;
}

/**
 * Reads and checks the service's settings: the environment, then the
 * configuration file named by `AGENT_LEDGER_CONFIG` (YAML or JSON), then the
 * defaults. The environment wins over the file. Relative paths are resolved
 * from `cwd` (environment) or from the file's folder (file).
 *
 * With no setting at all: the embedded store in `./data`, the example agents,
 * `127.0.0.1:3000`, and authentication in the development mode (no key is
 * configured and the host is loopback).
 *
 * @throws {@link InvalidFieldError} naming the environment variable, or the
 *   file's dotted key (`server.port`), of a bad or unknown value.
 */
export function readServiceConfig(env: Env = process.env, cwd = process.cwd()): ServiceConfig {
  const configPath = text(serviceEnvironmentOf(env).AGENT_LEDGER_CONFIG);
  const file = configPath === undefined ? null : readConfigFile(absolute(cwd, configPath));
  return resolveServiceConfig(env, file, cwd);
}

/**
 * {@link readServiceConfig} on a configuration file already read. It reads
 * only the variables of `SERVICE_ENVIRONMENT_VARIABLES`, and no file but the
 * PostgreSQL TLS files (`POSTGRES_TLS_*_FILE`) they name.
 */
export function resolveServiceConfig(environment: Env, file: ConfigFile | null, cwd: string): ServiceConfig {
  const env: ServiceEnvironment = serviceEnvironmentOf(environment);
  const fileKeyOf = new Map(Object.entries(CONFIG_FILE_KEYS).map(([key, name]) => [name, key as ConfigFileKey]));
  const find = (name: SettingName): Found | undefined => {
    const fromEnv = text(env[name]);
    if (fromEnv !== undefined) return { value: fromEnv, field: name, where: '', baseDir: cwd };
    const key = fileKeyOf.get(name) as ConfigFileKey;
    if (file === null || !file.values.has(key)) return undefined;
    return { value: file.values.get(key), field: key, where: ` in config file ${file.path}`, baseDir: file.dir };
  };
  const int = (name: SettingName, min: number, max: number, fallback: number): number => {
    const found = find(name);
    return found === undefined ? fallback : integerOf(found, min, max);
  };
  const optionalInt = (name: SettingName, min: number, max: number): number | undefined => {
    const found = find(name);
    return found === undefined ? undefined : integerOf(found, min, max);
  };
  const str = (name: SettingName): string | undefined => {
    const found = find(name);
    return found === undefined ? undefined : stringOf(found);
  };
  const path = (name: SettingName): string | undefined => {
    const found = find(name);
    return found === undefined ? undefined : absolute(found.baseDir, stringOf(found));
  };

  const dataDir = path('AGENT_LEDGER_DATA_DIR') ?? absolute(cwd, './data');
  const eventStoreConnectionString = str('EVENTSTORE_CONNECTION_STRING') ?? null;
  const eventStorePath = path('EVENT_STORE_PATH');
  if (eventStoreConnectionString !== null && eventStorePath !== undefined) {
    const found = find('EVENT_STORE_PATH') as Found;
    throw new InvalidFieldError(found.field, `${found.where} must not be set with EVENTSTORE_CONNECTION_STRING (one store: the embedded file or EventStoreDB)`.trim());
  }
  const postgres = postgresOf(find, str, int, path);
  if (postgres !== null && eventStoreConnectionString !== null) {
    const found = find('POSTGRES_CONNECTION_STRING') as Found;
    throw new InvalidFieldError(found.field, `${found.where} must not be set with EVENTSTORE_CONNECTION_STRING (one store: PostgreSQL or EventStoreDB)`.trim());
  }
  if (postgres !== null && eventStorePath !== undefined) {
    const found = find('EVENT_STORE_PATH') as Found;
    throw new InvalidFieldError(found.field, `${found.where} must not be set with POSTGRES_CONNECTION_STRING (one store: the embedded file or PostgreSQL)`.trim());
  }
  const backoffBaseSeconds = optionalInt('BACKOFF_BASE_SECONDS', 1, 86_400);
  const backoffCapSeconds = optionalInt('BACKOFF_CAP_SECONDS', 1, 604_800);
  if ((backoffCapSeconds ?? 600) < (backoffBaseSeconds ?? 30)) {
    const found = find(backoffCapSeconds === undefined ? 'BACKOFF_BASE_SECONDS' : 'BACKOFF_CAP_SECONDS') as Found;
    throw new InvalidFieldError(found.field, `${found.where} must keep BACKOFF_CAP_SECONDS (${backoffCapSeconds ?? 600}) at least BACKOFF_BASE_SECONDS (${backoffBaseSeconds ?? 30})`.trim());
  }
  const host = str('HOST') ?? '127.0.0.1';
  const consumerGroup = consumerGroupOf(eventStoreConnectionString !== null ? 'eventstoredb' : postgres !== null ? 'postgres' : 'sqlite', find, str, int);
  return {
    port: int('PORT', 0, 65_535, 3000),
    host,
    dataDir,
    eventStorePath: eventStoreConnectionString !== null || postgres !== null ? null : (eventStorePath ?? join(dataDir, 'agent-ledger.sqlite')),
    eventStoreConnectionString,
    postgres,
    consumerGroup,
    storeBusyTimeoutMs: int('STORE_BUSY_TIMEOUT_MS', 0, 60_000, 5_000),
    readModelsOnStoreMismatch: oneOf(find('READ_MODELS_ON_STORE_MISMATCH'), STORE_MISMATCH_POLICIES, 'refuse'),
    logFormat: oneOf(find('LOG_FORMAT'), LOG_FORMATS, 'text'),
    auditStorePath: path('AUDIT_STORE_PATH') ?? null,
    agentsConfigPath: path('AGENTS_CONFIG') ?? defaultAgentsFile(cwd),
    workspaceDir: path('WORKSPACE_DIR') ?? join(dataDir, 'workspace'),
    workerConcurrency: int('WORKER_CONCURRENCY', 0, 256, 4),
    workerProcesses: workerProcessesOf(find('WORKER_PROCESSES')),
    leaseSeconds: optionalInt('LEASE_SECONDS', 1, 86_400),
    backoffBaseSeconds,
    backoffCapSeconds,
    reaperIntervalMs: int('REAPER_INTERVAL_MS', 0, 86_400_000, 30_000),
    auditGapGraceMs: int('AUDIT_GAP_GRACE_MS', 1, 86_400_000, 60_000),
    httpBodyLimitBytes: int('HTTP_BODY_LIMIT_BYTES', 1024, 16_777_216, 262_144),
    sseHeartbeatMs: int('SSE_HEARTBEAT_MS', 100, 3_600_000, 15_000),
    readyMaxProjectionLag: int('READY_MAX_PROJECTION_LAG', 1, 1_000_000, 1000),
    auth: authOf(find('AUTH_MODE'), find('API_KEYS'), find('HOST'), host),
    consoleDir: path('CONSOLE_DIR') ?? builtConsoleDir(),
    plugins: pluginsOf(find('AGENT_LEDGER_PLUGINS')),
    mcpServers: mcpServersOf(file),
    configFile: file?.path ?? null,
    ...readCrashTestConfig(env, cwd),
  };
}

/** The settings of the workers' consumer group, each checked; null without EventStoreDB (and then none may be set). */
function consumerGroupOf(
  store: 'eventstoredb' | 'postgres' | 'sqlite',
  find: (name: SettingName) => Found | undefined,
  str: (name: SettingName) => string | undefined,
  int: (name: SettingName, min: number, max: number, fallback: number) => number,
): ResolvedConsumerGroupOptions | false | null {
  const names = ['EVENTSTORE_CONSUMER_GROUP', 'EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS', 'EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT', 'EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS'] as const;
  if (store !== 'eventstoredb') {
    const stray = names.map(find).find((found) => found !== undefined);
    if (stray !== undefined) {
      const why =
        store === 'postgres'
          ? 'the PostgreSQL store (POSTGRES_CONNECTION_STRING) has no consumer groups: its worker processes race for each due run, the claim fencing them, as on the embedded store'
          : 'the embedded store has no consumer groups (its workers share the queue of the file)';
      throw new InvalidFieldError(stray.field, `${stray.where} needs EVENTSTORE_CONNECTION_STRING: ${why}`.trim());
    }
    return null;
  }
  const name = str('EVENTSTORE_CONSUMER_GROUP') ?? DEFAULT_CONSUMER_GROUP.name;
  if (name === 'none') return false;
  const bounded = (setting: SettingName, option: keyof typeof CONSUMER_GROUP_LIMITS): number =>
    int(setting, CONSUMER_GROUP_LIMITS[option].min, CONSUMER_GROUP_LIMITS[option].max, DEFAULT_CONSUMER_GROUP[option]);
  if (!isConsumerGroupName(name)) {
    const found = find('EVENTSTORE_CONSUMER_GROUP') as Found;
    throw new InvalidFieldError(found.field, `${found.where} must be 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit, or none (got "${name}")`.trim());
  }
  return {
    name,
    messageTimeoutMs: bounded('EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS', 'messageTimeoutMs'),
    maxRetryCount: bounded('EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT', 'maxRetryCount'),
    sweepAfterMs: bounded('EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS', 'sweepAfterMs'),
  };
}

/** The settings of the PostgreSQL store, each checked, the TLS files read; null without `POSTGRES_CONNECTION_STRING` (and then no other `POSTGRES_*` may be set). */
function postgresOf(
  find: (name: SettingName) => Found | undefined,
  str: (name: SettingName) => string | undefined,
  int: (name: SettingName, min: number, max: number, fallback: number) => number,
  path: (name: SettingName) => string | undefined,
): PostgresSettings | null {
  const connectionString = str('POSTGRES_CONNECTION_STRING');
  const tlsNames = ['POSTGRES_TLS_CA_FILE', 'POSTGRES_TLS_CERT_FILE', 'POSTGRES_TLS_KEY_FILE', 'POSTGRES_TLS_REJECT_UNAUTHORIZED'] as const;
  if (connectionString === undefined) {
    const stray = (['POSTGRES_SCHEMA', 'POSTGRES_POOL_SIZE', ...tlsNames] as const).map(find).find((found) => found !== undefined);
    if (stray !== undefined) throw new InvalidFieldError(stray.field, `${stray.where} needs POSTGRES_CONNECTION_STRING: it is a setting of the PostgreSQL store, which is used only when POSTGRES_CONNECTION_STRING is set`.trim());
    return null;
  }
  const schema = str('POSTGRES_SCHEMA') ?? DEFAULT_POSTGRES_SCHEMA;
  if (!isPostgresSchemaName(schema)) {
    const found = find('POSTGRES_SCHEMA') as Found;
    throw new InvalidFieldError(found.field, `${found.where} must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters), got "${schema}"`.trim());
  }
  const poolSize = int('POSTGRES_POOL_SIZE', 1, 1000, 10);
  const tlsSetting = tlsNames.map(find).find((found) => found !== undefined);
  const tlsParameter = postgresTlsParameterOf(connectionString);
  if (tlsSetting !== undefined && tlsParameter !== undefined) {
    // node-postgres lets the connection string's TLS parameters replace the `ssl` option: the files would be ignored, or TLS turned off by sslmode=disable.
    throw new InvalidFieldError(
      tlsSetting.field,
      `${tlsSetting.where} must not be set when POSTGRES_CONNECTION_STRING has a TLS parameter (${tlsParameter}=): the connection string's would replace these settings. Configure TLS in one place: the POSTGRES_TLS_* settings, or the connection string's parameters`.trim(),
    );
  }
  const tls = tlsSetting === undefined ? null : tlsOf(find, path);
  return { connectionString, schema, poolSize, tls };
}

/** The TLS options of the PostgreSQL store, from its settings (at least one is set). */
function tlsOf(find: (name: SettingName) => Found | undefined, path: (name: SettingName) => string | undefined): PostgresTlsOptions {
  const pem = (name: 'POSTGRES_TLS_CA_FILE' | 'POSTGRES_TLS_CERT_FILE' | 'POSTGRES_TLS_KEY_FILE'): string | undefined => {
    const file = path(name);
    if (file === undefined) return undefined;
    const found = find(name) as Found;
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new InvalidFieldError(found.field, `${found.where} names a file that cannot be read: ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`.trim());
    }
  };
  const ca = pem('POSTGRES_TLS_CA_FILE');
  const cert = pem('POSTGRES_TLS_CERT_FILE');
  const key = pem('POSTGRES_TLS_KEY_FILE');
  if ((cert === undefined) !== (key === undefined)) {
    const given = find(cert === undefined ? 'POSTGRES_TLS_KEY_FILE' : 'POSTGRES_TLS_CERT_FILE') as Found;
    const missing = cert === undefined ? 'POSTGRES_TLS_CERT_FILE' : 'POSTGRES_TLS_KEY_FILE';
    throw new InvalidFieldError(given.field, `${given.where} needs ${missing} too: a client certificate and its key go together`.trim());
  }
  const reject = find('POSTGRES_TLS_REJECT_UNAUTHORIZED');
  let rejectUnauthorized = true;
  if (reject !== undefined) {
    const value = typeof reject.value === 'boolean' ? String(reject.value) : typeof reject.value === 'string' ? reject.value.trim() : undefined;
    if (value !== 'true' && value !== 'false') {
      throw new InvalidFieldError(reject.field, `${reject.where} must be true or false (got ${JSON.stringify(reject.value)})`.trim());
    }
    rejectUnauthorized = value === 'true';
  }
  return { rejectUnauthorized, ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) };
}

/** Whether an address is this machine only: `127.0.0.0/8`, `::1`, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

function authOf(mode: Found | undefined, keys: Found | undefined, hostSetting: Found | undefined, host: string): AuthSettings {
  let apiKeys: ApiKeyEntry[] = [];
  if (keys !== undefined) {
    let list = keys.value;
    if (typeof list === 'string') {
      try {
        list = JSON.parse(list) as unknown;
      } catch {
        throw new InvalidFieldError(keys.field, `${keys.where} must be JSON: a list of { "id", "hash", "scopes", "agents"? }`.trim());
      }
    }
    apiKeys = parseApiKeyEntries(list, keys.field, keys.where);
  }
  const loopback = isLoopbackHost(host);
  const hostName = hostSetting?.field ?? 'HOST';
  if (mode !== undefined) {
    const value = stringOf(mode);
    if (!(AUTH_MODES as readonly string[]).includes(value)) {
      throw new InvalidFieldError(mode.field, `${mode.where} must be one of ${AUTH_MODES.join(', ')} (got "${value}")`.trim());
    }
    if (value === 'disabled-on-loopback' && !loopback) {
      throw new InvalidFieldError(mode.field, `${mode.where} may be disabled-on-loopback only when ${hostName} is a loopback address (127.0.0.1, ::1, localhost); ${hostName} is "${host}"`.trim());
    }
    if (value === 'api-keys' && apiKeys.length === 0) {
      throw new InvalidFieldError(keys?.field ?? 'API_KEYS', 'must hold at least one key when AUTH_MODE is api-keys');
    }
    return { mode: value as AuthMode, modeSource: 'setting', apiKeys };
  }
  if (apiKeys.length > 0) return { mode: 'api-keys', modeSource: 'default', apiKeys };
  if (!loopback) {
    throw new InvalidFieldError(
      keys?.field ?? 'API_KEYS',
      `must hold at least one key when ${hostName} is not a loopback address (${hostName} is "${host}"): the API would be open to the network`,
    );
  }
  return { mode: 'disabled-on-loopback', modeSource: 'default', apiKeys };
}

/** One of `values`, or `fallback` when unset; else an error naming the field and the values. */
function oneOf<T extends string>(found: Found | undefined, values: readonly T[], fallback: T): T {
  if (found === undefined) return fallback;
  const value = stringOf(found);
  if (!(values as readonly string[]).includes(value)) {
    throw new InvalidFieldError(found.field, `${found.where} must be one of ${values.join(', ')} (got "${value}")`.trim());
  }
  return value as T;
}

/** The plugin files: a comma-separated list (environment) or a list of paths (file), each made absolute. */
function pluginsOf(found: Found | undefined): readonly string[] {
  if (found === undefined) return Object.freeze([]);
  const { value, field, where, baseDir } = found;
  const entries = typeof value === 'string' && where === '' ? value.split(',') : value;
  if (!Array.isArray(entries)) {
    throw new InvalidFieldError(field, `${where} must be a list of plugin files (e.g. [./dist/my-tools.js])`.trim());
  }
  const files = entries.map((entry: unknown, index) => {
    if (typeof entry !== 'string' || entry.trim() === '') {
      const at = where === '' ? `${field} (entry ${index + 1})` : `${field}[${index}]`;
      throw new InvalidFieldError(at, `${where} must be the path of a plugin file, not ${typeof entry === 'string' ? 'an empty one' : JSON.stringify(entry) ?? String(entry)}`.trim());
    }
    return absolute(baseDir, entry.trim());
  });
  return Object.freeze(files);
}

/**
 * The file's `mcpServers`, validated; none without a file.
 * @throws InvalidFieldError naming `mcpServers` and listing every problem, each with its path (`mcpServers[0].transport.url`)
 */
function mcpServersOf(file: ConfigFile | null): readonly McpServerBinding[] {
  if (file === null) return Object.freeze([]);
  const reader = new ConfigReader();
  const servers = validateMcpServerBindings(file.values.get('mcpServers'), 'mcpServers', reader, { source: file.path, baseDir: file.dir });
  if (servers === undefined || reader.issues.length > 0) {
    const count = `${reader.issues.length} ${reader.issues.length === 1 ? 'problem' : 'problems'}`;
    throw new InvalidFieldError('mcpServers', `in config file ${file.path} is refused (${count}):\n${reader.issues.map((issue) => `  - ${formatConfigIssue(issue)}`).join('\n')}`);
  }
  return servers;
}

function text(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function absolute(base: string, value: string): string {
  return isAbsolute(value) ? value : resolve(base, value);
}

function stringOf(found: Found): string {
  if (typeof found.value === 'string' && found.value.trim() !== '') return found.value.trim();
  if (typeof found.value === 'number' && found.where !== '') return String(found.value);
  throw new InvalidFieldError(found.field, `${found.where} must be a non-empty string`.trim());
}

function integerOf(found: Found, min: number, max: number, orWord?: string): number {
  const raw = typeof found.value === 'number' ? String(found.value) : found.value;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    const shown = typeof found.value === 'string' ? `"${found.value}"` : JSON.stringify(found.value);
    throw new InvalidFieldError(found.field, `${found.where} must be ${orWord === undefined ? '' : `${orWord} or `}an integer from ${min} to ${max} (got ${shown})`.trim());
  }
  return Number(raw);
}

/** `WORKER_PROCESSES`: `auto` (the default) or an integer from 0 to {@link MAX_WORKER_PROCESSES}, as a number of processes on this machine. */
function workerProcessesOf(found: Found | undefined): number {
  if (found === undefined || (typeof found.value === 'string' && found.value.trim() === 'auto')) return resolveWorkerProcessCount('auto');
  return integerOf(found, 0, MAX_WORKER_PROCESSES, 'auto');
}

/** The agents file used when `AGENTS_CONFIG` is not set: this repository's example, when the service runs from a folder that has it; none elsewhere. */
function defaultAgentsFile(cwd: string): string | null {
  const example = absolute(cwd, 'config/agents.example.yaml');
  return existsSync(example) ? example : null;
}
