import { readServiceConfig } from './service-config';

describe('readServiceConfig', () => {
  it('defaults to the embedded store under ./data, the example agents and 4 workers', () => {
    expect(readServiceConfig({}, '/srv/app')).toEqual({
      port: 3000,
      dataDir: '/srv/app/data',
      eventStoreConnectionString: null,
      auditStorePath: null,
      agentsConfigPath: '/srv/app/config/agents.example.yaml',
      workspaceDir: '/srv/app/data/workspace',
      workerConcurrency: 4,
      leaseSeconds: undefined,
      reaperIntervalMs: 30_000,
      auditGapGraceMs: 60_000,
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
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['WORKER_CONCURRENCY', '-1'],
    ['LEASE_SECONDS', '0'],
    ['REAPER_INTERVAL_MS', '1.5'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => readServiceConfig({ [name]: value })).toThrow(expect.objectContaining({ field: name }) as Error);
  });
});
