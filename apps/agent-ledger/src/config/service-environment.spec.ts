import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceConfig } from './service-config';
import { readServiceConfig } from './service-config';
import type { ServiceEnvironmentVariable } from './service-environment';
import { SERVICE_ENVIRONMENT_VARIABLES, serviceEnvironmentOf } from './service-environment';

type Env = Record<string, string>;

/** For each variable: a value, and the other variables it needs to matter, that make the reader answer differently or refuse. */
const PROBES: Record<ServiceEnvironmentVariable, { readonly value: string; readonly with?: Env }> = {
  PORT: { value: '0' },
  HOST: { value: '::1' },
  HTTP_BODY_LIMIT_BYTES: { value: '2048' },
  SSE_HEARTBEAT_MS: { value: '200' },
  READY_MAX_PROJECTION_LAG: { value: '5' },
  AGENT_LEDGER_DATA_DIR: { value: 'elsewhere' },
  EVENT_STORE_PATH: { value: 'store.sqlite' },
  EVENTSTORE_CONNECTION_STRING: { value: 'esdb://eventstore:2113?tls=false' },
  POSTGRES_CONNECTION_STRING: { value: 'postgresql://ledger@db:5432/al' },
  POSTGRES_SCHEMA: { value: 'tenant_a', with: { POSTGRES_CONNECTION_STRING: 'postgresql://ledger@db:5432/al' } },
  POSTGRES_POOL_SIZE: { value: '3', with: { POSTGRES_CONNECTION_STRING: 'postgresql://ledger@db:5432/al' } },
  POSTGRES_TLS_CA_FILE: { value: 'missing-ca.pem', with: { POSTGRES_CONNECTION_STRING: 'postgresql://ledger@db:5432/al' } },
  POSTGRES_TLS_CERT_FILE: { value: 'missing-cert.pem', with: { POSTGRES_CONNECTION_STRING: 'postgresql://ledger@db:5432/al' } },
  POSTGRES_TLS_KEY_FILE: { value: 'missing.key', with: { POSTGRES_CONNECTION_STRING: 'postgresql://ledger@db:5432/al' } },
  POSTGRES_TLS_REJECT_UNAUTHORIZED: { value: 'false', with: { POSTGRES_CONNECTION_STRING: 'postgresql://ledger@db:5432/al' } },
  STORE_BUSY_TIMEOUT_MS: { value: '10' },
  EVENTSTORE_CONSUMER_GROUP: { value: 'mine', with: { EVENTSTORE_CONNECTION_STRING: 'esdb://eventstore:2113?tls=false' } },
  EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS: { value: '5000', with: { EVENTSTORE_CONNECTION_STRING: 'esdb://eventstore:2113?tls=false' } },
  EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT: { value: '3', with: { EVENTSTORE_CONNECTION_STRING: 'esdb://eventstore:2113?tls=false' } },
  EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS: { value: '1000', with: { EVENTSTORE_CONNECTION_STRING: 'esdb://eventstore:2113?tls=false' } },
  AUDIT_STORE_PATH: { value: 'audit.sqlite' },
  READ_MODELS_ON_STORE_MISMATCH: { value: 'rebuild' },
  AUDIT_GAP_GRACE_MS: { value: '5' },
  AGENTS_CONFIG: { value: 'agents.yaml' },
  WORKSPACE_DIR: { value: 'workspace' },
  WORKER_CONCURRENCY: { value: '2' },
  WORKER_PROCESSES: { value: '7' },
  REAPER_INTERVAL_MS: { value: '0' },
  LEASE_SECONDS: { value: '60' },
  BACKOFF_BASE_SECONDS: { value: '10' },
  BACKOFF_CAP_SECONDS: { value: '100' },
  AUTH_MODE: { value: 'api-keys' },
  API_KEYS: { value: 'not JSON' },
  CONSOLE_DIR: { value: 'console' },
  LOG_FORMAT: { value: 'json' },
  AGENT_LEDGER_PLUGINS: { value: 'plugin.js' },
  AGENT_LEDGER_CONFIG: { value: 'missing.yaml' },
  AGENT_LEDGER_CRASH_POINTS: { value: 'no-such-point' },
  AGENT_LEDGER_CRASH_SEED: { value: '7' },
  AGENT_LEDGER_TEST_LEDGER: { value: 'ledger.txt' },
  NODE_ENV: { value: 'production', with: { AGENT_LEDGER_TEST_LEDGER: 'ledger.txt' } },
};

function outcome(env: Env, cwd: string): { config: ServiceConfig } | { refused: string } {
  try {
    return { config: readServiceConfig(env, cwd) };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

describe('SERVICE_ENVIRONMENT_VARIABLES', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(join(tmpdir(), 'agent-ledger-service-env-'));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('has a probe for each variable (a new variable gets one here)', () => {
    expect([...SERVICE_ENVIRONMENT_VARIABLES].sort()).toEqual(Object.keys(PROBES).sort());
  });

  it.each(Object.entries(PROBES))('lists %s, which the configuration reader reads', (name, probe) => {
    const base = probe.with ?? {};
    const without = outcome(base, cwd);
    const withIt = outcome({ ...base, [name]: probe.value }, cwd);
    expect('config' in without).toBe(true);
    expect(withIt).not.toEqual(without);
  });

  it('is all the reader sees: a variable outside it changes nothing', () => {
    expect(serviceEnvironmentOf({ PORT: '1', SERVICE_PORT: '2', OPENAI_API_KEY: 'k', HOST: undefined })).toEqual({ PORT: '1' });
    expect(readServiceConfig({ SERVICE_PORT: '2', port: '9' }, cwd)).toEqual(readServiceConfig({}, cwd));
  });
});
