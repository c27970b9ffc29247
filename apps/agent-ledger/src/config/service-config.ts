import { isAbsolute, join, resolve } from 'node:path';
import { InvalidFieldError } from '@agent-ledger/domain';

/** The service's settings, read from the environment. */
export interface ServiceConfig {
  /** `PORT`. @default 3000 */
  readonly port: number;
  /**
   * `HOST`: the address HTTP binds to. Set `0.0.0.0` (or `::`) to accept
   * connections from other machines.
   *
   * **Warning:** the API has no authentication yet: bind it to a public
   * address only behind a proxy that authenticates.
   * @default 127.0.0.1 (this machine only)
   */
  readonly host: string;
  /** `AGENT_LEDGER_DATA_DIR`: where the embedded stores and the tools' workspace live. @default ./data */
  readonly dataDir: string;
  /** `EVENTSTORE_CONNECTION_STRING`: use EventStoreDB instead of the embedded store. */
  readonly eventStoreConnectionString: string | null;
  /** `AUDIT_STORE_PATH`: put the audit streams in an embedded file of their own. @default null (the run store) */
  readonly auditStorePath: string | null;
  /** `AGENTS_CONFIG`: the agents file. @default config/agents.example.yaml */
  readonly agentsConfigPath: string;
  /** `WORKSPACE_DIR`: the folder the built-in file tools are confined to. @default <dataDir>/workspace */
  readonly workspaceDir: string;
  /** `WORKER_CONCURRENCY`: segments this process executes at once; 0 for none. @default 4 */
  readonly workerConcurrency: number;
  /** `LEASE_SECONDS`: lease length. @default 900 */
  readonly leaseSeconds: number | undefined;
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
}

/**
 * Reads and checks the service's settings.
 *
 * @throws {@link InvalidFieldError} naming the environment variable of a bad value.
 */
export function readServiceConfig(env: Readonly<Record<string, string | undefined>> = process.env, cwd = process.cwd()): ServiceConfig {
  const path = (value: string) => (isAbsolute(value) ? value : resolve(cwd, value));
  const dataDir = path(text(env, 'AGENT_LEDGER_DATA_DIR') ?? './data');
  const leaseSeconds = text(env, 'LEASE_SECONDS') === undefined ? undefined : integer(env, 'LEASE_SECONDS', 1, 86_400, 900);
  return {
    port: integer(env, 'PORT', 0, 65_535, 3000),
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    eventStoreConnectionString: text(env, 'EVENTSTORE_CONNECTION_STRING') ?? null,
    auditStorePath: text(env, 'AUDIT_STORE_PATH') === undefined ? null : path(text(env, 'AUDIT_STORE_PATH') as string),
    agentsConfigPath: path(text(env, 'AGENTS_CONFIG') ?? 'config/agents.example.yaml'),
    workspaceDir: path(text(env, 'WORKSPACE_DIR') ?? join(dataDir, 'workspace')),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 0, 256, 4),
    leaseSeconds,
    reaperIntervalMs: integer(env, 'REAPER_INTERVAL_MS', 0, 86_400_000, 30_000),
    auditGapGraceMs: integer(env, 'AUDIT_GAP_GRACE_MS', 1, 86_400_000, 60_000),
    httpBodyLimitBytes: integer(env, 'HTTP_BODY_LIMIT_BYTES', 1024, 16_777_216, 262_144),
    sseHeartbeatMs: integer(env, 'SSE_HEARTBEAT_MS', 100, 3_600_000, 15_000),
    readyMaxProjectionLag: integer(env, 'READY_MAX_PROJECTION_LAG', 1, 1_000_000, 1000),
  };
}

function text(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Readonly<Record<string, string | undefined>>, name: string, min: number, max: number, fallback: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InvalidFieldError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}
