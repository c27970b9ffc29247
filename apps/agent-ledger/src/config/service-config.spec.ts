import { readServiceConfig } from './service-config';

describe('readServiceConfig', () => {
  it('defaults to the embedded store under ./data, the example agents and 4 workers', () => {
    expect(readServiceConfig({}, '/srv/app')).toEqual({
      port: 3000,
      host: '127.0.0.1',
      dataDir: '/srv/app/data',
      eventStoreConnectionString: null,
      auditStorePath: null,
      agentsConfigPath: '/srv/app/config/agents.example.yaml',
      workspaceDir: '/srv/app/data/workspace',
      workerConcurrency: 4,
      leaseSeconds: undefined,
      reaperIntervalMs: 30_000,
      auditGapGraceMs: 60_000,
      httpBodyLimitBytes: 262_144,
      sseHeartbeatMs: 15_000,
      readyMaxProjectionLag: 1000,
    });
  });

  it('reads every setting from the environment', () => {
    const config = readServiceConfig(
      {
        PORT: '8080',
        AGENT_LEDGER_DATA_DIR: '/var/lib/al',
        EVENTSTORE_CONNECTION_STRING: 'esdb://eventstore:2113?tls=false',
        AUDIT_STORE_PATH: 'audit.sqlite',
        AGENTS_CONFIG: '/etc/al/agents.yaml',
        WORKER_CONCURRENCY: '0',
        LEASE_SECONDS: '60',
        REAPER_INTERVAL_MS: '1000',
        AUDIT_GAP_GRACE_MS: '5000',
        HOST: '0.0.0.0',
        HTTP_BODY_LIMIT_BYTES: '65536',
        SSE_HEARTBEAT_MS: '1000',
        READY_MAX_PROJECTION_LAG: '50',
      },
      '/srv/app',
    );
    expect(config).toMatchObject({
      port: 8080,
      dataDir: '/var/lib/al',
      eventStoreConnectionString: 'esdb://eventstore:2113?tls=false',
      auditStorePath: '/srv/app/audit.sqlite',
      agentsConfigPath: '/etc/al/agents.yaml',
      workspaceDir: '/var/lib/al/workspace',
      workerConcurrency: 0,
      leaseSeconds: 60,
      reaperIntervalMs: 1000,
      auditGapGraceMs: 5000,
      host: '0.0.0.0',
      httpBodyLimitBytes: 65_536,
      sseHeartbeatMs: 1000,
      readyMaxProjectionLag: 50,
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['WORKER_CONCURRENCY', '-1'],
    ['LEASE_SECONDS', '0'],
    ['REAPER_INTERVAL_MS', '1.5'],
    ['HTTP_BODY_LIMIT_BYTES', '10'],
    ['SSE_HEARTBEAT_MS', '0'],
    ['READY_MAX_PROJECTION_LAG', '0'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => readServiceConfig({ [name]: value })).toThrow(expect.objectContaining({ field: name }) as Error);
  });
});
