import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { usableCores } from '@agent-ledger/runtime/settings';
import { join } from 'node:path';
import { InvalidFieldError } from '@agent-ledger/domain';
import { hashApiKey } from '@agent-ledger/http';
import { isLoopbackHost, readServiceConfig } from './service-config';

const OPS_HASH = hashApiKey('ops-secret');

describe('readServiceConfig', () => {
  it('reads the agents from config/agents.example.yaml under the working directory when AGENTS_CONFIG is unset and that file exists, else from no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-agents-default-'));
    try {
      expect(readServiceConfig({}, dir).agentsConfigPath).toBeNull();
      mkdirSync(join(dir, 'config'));
      writeFileSync(join(dir, 'config', 'agents.example.yaml'), 'agents: []\n');
      expect(readServiceConfig({}, dir).agentsConfigPath).toBe(join(dir, 'config', 'agents.example.yaml'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('defaults to the embedded store under ./data, no agents file outside this repository and 4 workers', () => {
    expect(readServiceConfig({}, '/srv/app')).toEqual({
      port: 3000,
      host: '127.0.0.1',
      dataDir: '/srv/app/data',
      eventStorePath: '/srv/app/data/agent-ledger.sqlite',
      eventStoreConnectionString: null,
      postgres: null,
      consumerGroup: null,
      storeBusyTimeoutMs: 5000,
      readModelsOnStoreMismatch: 'refuse',
      logFormat: 'text',
      auditStorePath: null,
      agentsConfigPath: null,
      workspaceDir: '/srv/app/data/workspace',
      workerConcurrency: 4,
      workerProcesses: Math.max(0, usableCores() - 1),
      leaseSeconds: undefined,
      backoffBaseSeconds: undefined,
      backoffCapSeconds: undefined,
      reaperIntervalMs: 30_000,
      auditGapGraceMs: 60_000,
      httpBodyLimitBytes: 262_144,
      sseHeartbeatMs: 15_000,
      readyMaxProjectionLag: 1000,
      auth: { mode: 'disabled-on-loopback', modeSource: 'default', apiKeys: [] },
      // The console's build in @agent-ledger/http, found from that package's files, not from the working directory.
      consoleDir: join(__dirname, '..', '..', '..', '..', 'libs', 'http', 'console'),
      plugins: [],
      mcpServers: [],
      configFile: null,
      crashPoints: null,
      testLedgerPath: null,
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
        BACKOFF_BASE_SECONDS: '2',
        BACKOFF_CAP_SECONDS: '20',
        API_KEYS: JSON.stringify([{ id: 'ops', hash: OPS_HASH, scopes: ['operate'] }]),
        CONSOLE_DIR: 'web/console',
        STORE_BUSY_TIMEOUT_MS: '250',
        READ_MODELS_ON_STORE_MISMATCH: 'rebuild',
        EVENTSTORE_CONSUMER_GROUP: 'team-a.workers',
        EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS: '5000',
        EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT: '3',
        EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS: '1000',
      },
      '/srv/app',
    );
    expect(config).toMatchObject({
      consumerGroup: { name: 'team-a.workers', messageTimeoutMs: 5000, maxRetryCount: 3, sweepAfterMs: 1000 },
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
      eventStorePath: null,
      backoffBaseSeconds: 2,
      backoffCapSeconds: 20,
      consoleDir: '/srv/app/web/console',
      storeBusyTimeoutMs: 250,
      readModelsOnStoreMismatch: 'rebuild',
      auth: { mode: 'api-keys', modeSource: 'default', apiKeys: [{ id: 'ops', hash: OPS_HASH, scopes: ['operate'], agents: null }] },
    });
  });

  it('reads WORKER_PROCESSES: auto (one fewer than the cores), or a number from 0 to 64, from the environment or the file', () => {
    const auto = Math.max(0, usableCores() - 1);
    expect(readServiceConfig({ WORKER_PROCESSES: 'auto' }).workerProcesses).toBe(auto);
    expect(readServiceConfig({ WORKER_PROCESSES: '0' }).workerProcesses).toBe(0);
    expect(readServiceConfig({ WORKER_PROCESSES: '64' }).workerProcesses).toBe(64);
    const dir = mkdtempSync(join(tmpdir(), 'al-config-'));
    try {
      const file = join(dir, 'agent-ledger.yaml');
      writeFileSync(file, 'workers:\n  processes: 3\n');
      expect(readServiceConfig({ AGENT_LEDGER_CONFIG: file }).workerProcesses).toBe(3);
      writeFileSync(file, 'workers:\n  processes: many\n');
      expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: file })).toThrow(/workers\.processes in config file .* must be auto or an integer from 0 to 64 \(got "many"\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['WORKER_CONCURRENCY', '-1'],
    ['WORKER_PROCESSES', 'all'],
    ['WORKER_PROCESSES', '65'],
    ['WORKER_PROCESSES', '-1'],
    ['LEASE_SECONDS', '0'],
    ['REAPER_INTERVAL_MS', '1.5'],
    ['HTTP_BODY_LIMIT_BYTES', '10'],
    ['SSE_HEARTBEAT_MS', '0'],
    ['STORE_BUSY_TIMEOUT_MS', '60001'],
    ['STORE_BUSY_TIMEOUT_MS', '-1'],
    ['READY_MAX_PROJECTION_LAG', '0'],
    ['BACKOFF_BASE_SECONDS', '0'],
    ['BACKOFF_CAP_SECONDS', 'soon'],
    ['READ_MODELS_ON_STORE_MISMATCH', 'ignore'],
    ['READ_MODELS_ON_STORE_MISMATCH', 'reset'],
    ['AUTH_MODE', 'off'],
    ['AUTH_MODE', 'disabled'],
    ['API_KEYS', '{not json'],
    ['API_KEYS', '{"id":"a"}'],
    ['API_KEYS[0].hash', '[{"id":"a","hash":"plain-text-key","scopes":["runs:read"]}]'],
    ['API_KEYS[0].scopes[1]', '[{"id":"a","hash":"sha256:' + '0'.repeat(64) + '","scopes":["runs:read","admin"]}]'],
    ['API_KEYS[0].agents', '[{"id":"a","hash":"sha256:' + '0'.repeat(64) + '","scopes":["runs:read"],"agents":[]}]'],
    ['API_KEYS[0].role', '[{"id":"a","hash":"sha256:' + '0'.repeat(64) + '","scopes":["runs:read"],"role":"x"}]'],
    ['API_KEYS[1].id', '[{"id":"a","hash":"sha256:' + '0'.repeat(64) + '","scopes":["runs:read"]},{"id":"a","hash":"sha256:' + '1'.repeat(64) + '","scopes":["operate"]}]'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    const variable = name.replace(/\[.*$/, '');
    expect(() => readServiceConfig({ [variable]: value })).toThrow(expect.objectContaining({ field: name }) as Error);
  });

  it('refuses a backoff cap below the base', () => {
    expect(() => readServiceConfig({ BACKOFF_BASE_SECONDS: '60', BACKOFF_CAP_SECONDS: '30' })).toThrow(expect.objectContaining({ field: 'BACKOFF_CAP_SECONDS' }) as Error);
  });

  it('refuses the embedded store path together with EventStoreDB', () => {
    expect(() => readServiceConfig({ EVENT_STORE_PATH: 'x.sqlite', EVENTSTORE_CONNECTION_STRING: 'esdb://h:2113' })).toThrow(expect.objectContaining({ field: 'EVENT_STORE_PATH' }) as Error);
  });

  it('gives the consumer group its defaults on EventStoreDB, none with `none`, and refuses its settings on the embedded store or out of range', () => {
    const esdb = { EVENTSTORE_CONNECTION_STRING: 'esdb://h:2113' };
    expect(readServiceConfig(esdb).consumerGroup).toEqual({ name: 'agent-ledger-workers', messageTimeoutMs: 30_000, maxRetryCount: 10, sweepAfterMs: 30_000 });
    expect(readServiceConfig({ ...esdb, EVENTSTORE_CONSUMER_GROUP: 'none' }).consumerGroup).toBe(false);
    expect(() => readServiceConfig({ EVENTSTORE_CONSUMER_GROUP: 'workers' })).toThrow(expect.objectContaining({ field: 'EVENTSTORE_CONSUMER_GROUP', message: expect.stringContaining('needs EVENTSTORE_CONNECTION_STRING') }) as Error);
    expect(() => readServiceConfig({ EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS: '10' })).toThrow(expect.objectContaining({ field: 'EVENTSTORE_CONSUMER_GROUP_SWEEP_AFTER_MS' }) as Error);
    expect(() => readServiceConfig({ ...esdb, EVENTSTORE_CONSUMER_GROUP: 'has space' })).toThrow(expect.objectContaining({ field: 'EVENTSTORE_CONSUMER_GROUP' }) as Error);
    expect(() => readServiceConfig({ ...esdb, EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS: '999' })).toThrow(expect.objectContaining({ field: 'EVENTSTORE_CONSUMER_GROUP_MESSAGE_TIMEOUT_MS' }) as Error);
    expect(() => readServiceConfig({ ...esdb, EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT: '-1' })).toThrow(expect.objectContaining({ field: 'EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT' }) as Error);
  });
});

describe('readServiceConfig: authentication', () => {
  const keys = JSON.stringify([{ id: 'reader', hash: hashApiKey('k'), scopes: ['runs:read'], agents: ['clock'] }]);

  it('defaults to the development mode with no key on a loopback host', () => {
    expect(readServiceConfig({ HOST: 'localhost' }).auth).toEqual({ mode: 'disabled-on-loopback', modeSource: 'default', apiKeys: [] });
  });

  it('requires keys when configured ones exist', () => {
    expect(readServiceConfig({ API_KEYS: keys }).auth).toMatchObject({ mode: 'api-keys', apiKeys: [{ id: 'reader', agents: ['clock'] }] });
  });

  it('refuses to start on a non-loopback host without keys, naming API_KEYS', () => {
    expect(() => readServiceConfig({ HOST: '0.0.0.0' })).toThrow(expect.objectContaining({ field: 'API_KEYS', message: expect.stringContaining('0.0.0.0') as string }) as Error);
  });

  it('allows the explicit development mode on loopback only, naming AUTH_MODE otherwise', () => {
    expect(readServiceConfig({ AUTH_MODE: 'disabled-on-loopback', API_KEYS: keys }).auth).toMatchObject({ mode: 'disabled-on-loopback', modeSource: 'setting' });
    expect(() => readServiceConfig({ AUTH_MODE: 'disabled-on-loopback', HOST: '0.0.0.0', API_KEYS: keys })).toThrow(expect.objectContaining({ field: 'AUTH_MODE' }) as Error);
  });

  it('refuses AUTH_MODE=api-keys without a key, naming API_KEYS', () => {
    expect(() => readServiceConfig({ AUTH_MODE: 'api-keys' })).toThrow(expect.objectContaining({ field: 'API_KEYS' }) as Error);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['128.0.0.1', false],
  ])('isLoopbackHost(%s) is %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('readServiceConfig: the configuration file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads YAML settings, paths relative to the file, the environment winning', () => {
    const file = write(
      'agent-ledger.yaml',
      `server: { port: 8080, host: 0.0.0.0 }
store: { dataDir: state, path: state/events.sqlite, readModelsOnMismatch: rebuild }
audit: { storePath: audit.sqlite, gapGraceMs: 5000 }
agents: { configFile: agents.yaml }
tools: { workspaceDir: /srv/ws }
workers: { concurrency: 2, reaperIntervalMs: 1000 }
runs: { leaseSeconds: 60, backoffBaseSeconds: 5, backoffCapSeconds: 50 }
console: { dir: ui }
auth:
  apiKeys:
    - id: ops
      hash: ${OPS_HASH}
      scopes: [operate, metrics:read]
`,
    );
    const config = readServiceConfig({ AGENT_LEDGER_CONFIG: file, PORT: '9090' }, '/elsewhere');
    expect(config).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: join(dir, 'state'),
      eventStorePath: join(dir, 'state/events.sqlite'),
      readModelsOnStoreMismatch: 'rebuild',
      auditStorePath: join(dir, 'audit.sqlite'),
      auditGapGraceMs: 5000,
      agentsConfigPath: join(dir, 'agents.yaml'),
      workspaceDir: '/srv/ws',
      workerConcurrency: 2,
      reaperIntervalMs: 1000,
      leaseSeconds: 60,
      backoffBaseSeconds: 5,
      backoffCapSeconds: 50,
      consoleDir: join(dir, 'ui'),
      auth: { mode: 'api-keys', apiKeys: [{ id: 'ops', scopes: ['operate', 'metrics:read'], agents: null }] },
      configFile: file,
    });
  });

  it('reads JSON too', () => {
    const file = write('config.json', JSON.stringify({ workers: { concurrency: 0 } }));
    expect(readServiceConfig({ AGENT_LEDGER_CONFIG: file }).workerConcurrency).toBe(0);
  });

  it.each([
    ['an unknown section', 'servers: { port: 1 }', 'servers'],
    ['an unknown key', 'server: { prot: 1 }', 'server.prot'],
    ['a bad value', 'server: { port: 70000 }', 'server.port'],
    ['a bad key entry', 'auth: { apiKeys: [ { id: ops, hash: secret, scopes: [operate] } ] }', 'auth.apiKeys[0].hash'],
    ['a bad auth mode', 'auth: { mode: none }', 'auth.mode'],
    ['a bad store-mismatch policy', 'store: { readModelsOnMismatch: keep }', 'store.readModelsOnMismatch'],
  ])('refuses %s, naming it and the file', (_what, text, field) => {
    const file = write('bad.yaml', text);
    expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: file })).toThrow(expect.objectContaining({ field, message: expect.stringContaining(file) as string }) as Error);
  });

  it('reads the plugins: the file\'s top-level list, relative to its folder; AGENT_LEDGER_PLUGINS, comma-separated and relative to the working directory, wins', () => {
    const file = write('plugins.yaml', 'plugins: [./dist/tools.js, /opt/shared/more.mjs]\nserver: { port: 8080 }\n');
    expect(readServiceConfig({ AGENT_LEDGER_CONFIG: file }, '/elsewhere').plugins).toEqual([join(dir, 'dist/tools.js'), '/opt/shared/more.mjs']);
    expect(readServiceConfig({ AGENT_LEDGER_CONFIG: file, AGENT_LEDGER_PLUGINS: ' a.js , /b/c.cjs' }, '/work').plugins).toEqual(['/work/a.js', '/b/c.cjs']);
    expect(readServiceConfig({}, '/work').plugins).toEqual([]);
  });

  it.each<[string, { file?: string; env?: string }, string]>([
    ['a file whose plugins is not a list', { file: 'plugins: ./one.js' }, 'plugins'],
    ['a file whose plugins holds an empty entry', { file: 'plugins: [a.js, ""]' }, 'plugins[1]'],
    ['an empty entry in AGENT_LEDGER_PLUGINS', { env: 'a.js,,b.js' }, 'AGENT_LEDGER_PLUGINS (entry 2)'],
  ])('refuses %s, naming the field', (_what, { file, env }, field) => {
    const config = file === undefined ? {} : { AGENT_LEDGER_CONFIG: write('bad-plugins.yaml', file) };
    expect(() => readServiceConfig({ ...config, ...(env === undefined ? {} : { AGENT_LEDGER_PLUGINS: env }) })).toThrow(expect.objectContaining({ field }) as Error);
  });

  it("reads the file's mcpServers, validated, the file as their source and its folder as their base; none without", () => {
    const file = write(
      'mcp.yaml',
      `mcpServers:
  - name: fs
    transport: { type: stdio, command: ./bin/fs-server, args: [./data], env: { FS_TOKEN: { fromEnv: FS_TOKEN } } }
    tools: { read_text_file: { effect: READ_ONLY }, write_file: { effect: IDEMPOTENT_WRITE, operationDeadlineSeconds: 60 } }
  - name: tickets
    transport: { type: http, url: https://mcp.example.com/mcp }
    trustHints: true
    tools: { search: {} }
plugins: [./dist/tools.js]
`,
    );
    const { mcpServers } = readServiceConfig({ AGENT_LEDGER_CONFIG: file }, '/elsewhere');
    expect(mcpServers).toEqual([
      {
        name: 'fs',
        transport: { type: 'stdio', command: join(dir, 'bin/fs-server'), args: ['./data'], cwd: dir, env: { FS_TOKEN: { fromEnv: 'FS_TOKEN' } } },
        trustHints: false,
        startTimeoutSeconds: 30,
        maxInlineBytes: 65_536,
        maxResultBytes: 262_144,
        restart: { initialDelayMs: 1_000, maxDelayMs: 30_000 },
        tools: [
          { tool: 'read_text_file', name: 'fs.read_text_file', effect: 'READ_ONLY' },
          { tool: 'write_file', name: 'fs.write_file', effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 },
        ],
        source: file,
        baseDir: dir,
      },
      expect.objectContaining({ name: 'tickets', trustHints: true, transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: {} }, source: file }),
    ]);
    expect(readServiceConfig({ AGENT_LEDGER_CONFIG: write('none.yaml', 'server: { port: 8080 }\n') }).mcpServers).toEqual([]);
  });

  it("refuses the file's mcpServers with every problem, each with its path, naming the file; and a misspelt key, listing mcpServers", () => {
    const file = write(
      'bad-mcp.yaml',
      `mcpServers:
  - name: fs
    effect: READ_ONLY
    transport: { type: http, url: "https://bot:pw@mcp.example.com/mcp", headers: { X-Api-Key: abc123 } }
    tools: { search: { effect: READONLY } }
`,
    );
    let refusal: unknown;
    try {
      readServiceConfig({ AGENT_LEDGER_CONFIG: file });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InvalidFieldError);
    expect((refusal as InvalidFieldError).field).toBe('mcpServers');
    expect((refusal as InvalidFieldError).message).toBe(
      `mcpServers in config file ${file} is refused (4 problems):
  - mcpServers[0].effect is refused here: an MCP tool's effect is declared per tool, at mcpServers[0].tools.<tool>.effect (READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE)
  - mcpServers[0].transport.url must not carry credentials (user:password@): send it in a header from the environment or a file, e.g. Authorization: { fromEnv: NAME, prefix: "Bearer " }
  - mcpServers[0].transport.headers["X-Api-Key"] looks like a secret (its name has "key") and must not be written in a file: use { fromEnv: NAME } (an environment variable of the service) or { fromFile: path }, each with an optional prefix
  - mcpServers[0].tools.search.effect must be one of READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE, not the string "READONLY"`,
    );
    expect((refusal as Error).message).not.toMatch(/abc123|:pw@/);
    expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: write('typo.yaml', 'mcpServer: []\n') })).toThrow(
      expect.objectContaining({ field: 'mcpServer', message: expect.stringMatching(/is not a setting \(known: .*, plugins, mcpServers\)$/) as string }) as Error,
    );
  });

  it('refuses a missing or unparsable file, naming AGENT_LEDGER_CONFIG', () => {
    expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: join(dir, 'nope.yaml') })).toThrow(expect.objectContaining({ field: 'AGENT_LEDGER_CONFIG' }) as Error);
    const file = write('broken.yaml', 'server: [1, 2');
    expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: file })).toThrow(expect.objectContaining({ field: 'AGENT_LEDGER_CONFIG' }) as Error);
  });
});

describe('readServiceConfig: PostgreSQL', () => {
  const PG = 'postgresql://ledger:s3cret@db:5432/al';
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-pg-config-'));
    writeFileSync(join(dir, 'ca.pem'), 'CA PEM');
    writeFileSync(join(dir, 'client.pem'), 'CERT PEM');
    writeFileSync(join(dir, 'client.key'), 'KEY PEM');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('selects PostgreSQL with POSTGRES_CONNECTION_STRING, with the defaults: schema agent_ledger, 10 connections, TLS as the connection string says; nothing else changes', () => {
    const config = readServiceConfig({ POSTGRES_CONNECTION_STRING: ` ${PG} ` }, '/srv/app');
    expect(config.postgres).toEqual({ connectionString: PG, schema: 'agent_ledger', poolSize: 10, tls: null });
    expect(config.eventStorePath).toBeNull();
    expect(config.eventStoreConnectionString).toBeNull();
    // No consumer group: the worker processes race for due runs, fenced by the claim, as on the embedded store.
    expect(config.consumerGroup).toBeNull();
    // The read models, the processors' database, the saga's ledger and the workspace stay in the data folder.
    const embedded = readServiceConfig({}, '/srv/app');
    expect({ ...config, postgres: null, eventStorePath: embedded.eventStorePath }).toEqual(embedded);
    expect(readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, AUDIT_STORE_PATH: 'audit.sqlite' }, '/srv/app').auditStorePath).toBe('/srv/app/audit.sqlite');
  });

  it('treats a blank POSTGRES_CONNECTION_STRING as not set', () => {
    expect(readServiceConfig({ POSTGRES_CONNECTION_STRING: '  ' }, '/srv/app').postgres).toBeNull();
  });

  it('reads every PostgreSQL setting from the environment, the TLS files read at start-up (relative to the working directory)', () => {
    const config = readServiceConfig(
      {
        POSTGRES_CONNECTION_STRING: PG,
        POSTGRES_SCHEMA: 'tenant_a',
        POSTGRES_POOL_SIZE: '25',
        POSTGRES_TLS_CA_FILE: 'ca.pem',
        POSTGRES_TLS_CERT_FILE: join(dir, 'client.pem'),
        POSTGRES_TLS_KEY_FILE: 'client.key',
        POSTGRES_TLS_REJECT_UNAUTHORIZED: 'false',
      },
      dir,
    );
    expect(config.postgres).toEqual({ connectionString: PG, schema: 'tenant_a', poolSize: 25, tls: { rejectUnauthorized: false, ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' } });
  });

  it('leaves TLS to the connection string (sslmode) when no TLS setting is set', () => {
    expect(readServiceConfig({ POSTGRES_CONNECTION_STRING: `${PG}?sslmode=verify-full` }).postgres).toMatchObject({ connectionString: `${PG}?sslmode=verify-full`, tls: null });
  });

  it('makes TLS an object when any TLS setting is set, verifying the server by default', () => {
    expect(readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_CA_FILE: join(dir, 'ca.pem') }).postgres?.tls).toEqual({ rejectUnauthorized: true, ca: 'CA PEM' });
    expect(readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_REJECT_UNAUTHORIZED: 'true' }).postgres?.tls).toEqual({ rejectUnauthorized: true });
  });

  it('reads the settings from the file\'s store section, paths relative to the file, the environment winning', () => {
    writeFileSync(
      join(dir, 'agent-ledger.yaml'),
      `store:
  postgresConnectionString: ${PG}
  postgresSchema: from_file
  postgresPoolSize: 3
  postgresTlsCaFile: ca.pem
  postgresTlsCertFile: client.pem
  postgresTlsKeyFile: client.key
  postgresTlsRejectUnauthorized: false
`,
    );
    const env = { AGENT_LEDGER_CONFIG: join(dir, 'agent-ledger.yaml') };
    expect(readServiceConfig(env, '/elsewhere').postgres).toEqual({
      connectionString: PG,
      schema: 'from_file',
      poolSize: 3,
      tls: { rejectUnauthorized: false, ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' },
    });
    expect(readServiceConfig({ ...env, POSTGRES_SCHEMA: 'from_env' }, '/elsewhere').postgres?.schema).toBe('from_env');
  });

  it.each<[string, Record<string, string>, string]>([
    ['with EventStoreDB', { POSTGRES_CONNECTION_STRING: PG, EVENTSTORE_CONNECTION_STRING: 'esdb://h:2113' }, 'POSTGRES_CONNECTION_STRING'],
    ['with the embedded file', { POSTGRES_CONNECTION_STRING: PG, EVENT_STORE_PATH: 'x.sqlite' }, 'EVENT_STORE_PATH'],
    ['a schema that is not a lower-case SQL identifier', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_SCHEMA: 'Tenant-A' }, 'POSTGRES_SCHEMA'],
    ['a schema of 64 characters', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_SCHEMA: 'a'.repeat(64) }, 'POSTGRES_SCHEMA'],
    ['a pool of 0', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_POOL_SIZE: '0' }, 'POSTGRES_POOL_SIZE'],
    ['a pool of 1001', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_POOL_SIZE: '1001' }, 'POSTGRES_POOL_SIZE'],
    ['a pool that is not a number', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_POOL_SIZE: 'many' }, 'POSTGRES_POOL_SIZE'],
    ['a missing CA file', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_CA_FILE: '/nonexistent/ca.pem' }, 'POSTGRES_TLS_CA_FILE'],
    ['a missing certificate file', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_CERT_FILE: '/nonexistent/c.pem', POSTGRES_TLS_KEY_FILE: '/nonexistent/c.key' }, 'POSTGRES_TLS_CERT_FILE'],
    ['a certificate without its key', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_CERT_FILE: '/etc/hostname' }, 'POSTGRES_TLS_CERT_FILE'],
    ['a key without its certificate', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_KEY_FILE: '/etc/hostname' }, 'POSTGRES_TLS_KEY_FILE'],
    ['a reject-unauthorized that is not true or false', { POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_REJECT_UNAUTHORIZED: 'no' }, 'POSTGRES_TLS_REJECT_UNAUTHORIZED'],
    ['a TLS setting with sslmode in the connection string (it would replace the setting)', { POSTGRES_CONNECTION_STRING: `${PG}?sslmode=disable`, POSTGRES_TLS_CA_FILE: '/etc/hostname' }, 'POSTGRES_TLS_CA_FILE'],
    ['a TLS setting with sslrootcert in the connection string', { POSTGRES_CONNECTION_STRING: `${PG}?application_name=al&sslrootcert=/ca.pem`, POSTGRES_TLS_REJECT_UNAUTHORIZED: 'true' }, 'POSTGRES_TLS_REJECT_UNAUTHORIZED'],
    ['the consumer group (no consumer groups on PostgreSQL)', { POSTGRES_CONNECTION_STRING: PG, EVENTSTORE_CONSUMER_GROUP: 'workers' }, 'EVENTSTORE_CONSUMER_GROUP'],
    ['a consumer group setting', { POSTGRES_CONNECTION_STRING: PG, EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT: '3' }, 'EVENTSTORE_CONSUMER_GROUP_MAX_RETRY_COUNT'],
    ...(['POSTGRES_SCHEMA', 'POSTGRES_POOL_SIZE', 'POSTGRES_TLS_CA_FILE', 'POSTGRES_TLS_CERT_FILE', 'POSTGRES_TLS_KEY_FILE', 'POSTGRES_TLS_REJECT_UNAUTHORIZED'] as const).map(
      (name): [string, Record<string, string>, string] => [`${name} without POSTGRES_CONNECTION_STRING`, { [name]: name === 'POSTGRES_POOL_SIZE' ? '5' : 'x' }, name],
    ),
  ])('refuses %s, naming the field', (_what, env, field) => {
    expect(() => readServiceConfig(env, dir)).toThrow(expect.objectContaining({ field }) as Error);
  });

  it('says why: both stores named, the unreadable file named, the stray setting pointed at POSTGRES_CONNECTION_STRING, the consumer group at EventStoreDB', () => {
    expect(() => readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, EVENTSTORE_CONNECTION_STRING: 'esdb://h:2113' })).toThrow(/must not be set with EVENTSTORE_CONNECTION_STRING/);
    expect(() => readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, EVENT_STORE_PATH: 'x.sqlite' })).toThrow(/must not be set with POSTGRES_CONNECTION_STRING/);
    expect(() => readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, POSTGRES_TLS_CA_FILE: '/nonexistent/ca.pem' })).toThrow(/\/nonexistent\/ca\.pem \(ENOENT\)/);
    expect(() => readServiceConfig({ POSTGRES_SCHEMA: 'tenant_a' })).toThrow(/needs POSTGRES_CONNECTION_STRING/);
    expect(() => readServiceConfig({ POSTGRES_CONNECTION_STRING: PG, EVENTSTORE_CONSUMER_GROUP: 'workers' })).toThrow(
      /needs EVENTSTORE_CONNECTION_STRING: the PostgreSQL store \(POSTGRES_CONNECTION_STRING\) has no consumer groups/,
    );
  });

  it('refuses a bad setting in the file, naming its dotted key and the file', () => {
    writeFileSync(join(dir, 'bad.yaml'), `store: { postgresConnectionString: "${PG}", postgresTlsRejectUnauthorized: maybe }\n`);
    expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: join(dir, 'bad.yaml') })).toThrow(
      expect.objectContaining({ field: 'store.postgresTlsRejectUnauthorized', message: expect.stringContaining(join(dir, 'bad.yaml')) as string }) as Error,
    );
    writeFileSync(join(dir, 'stray.yaml'), 'store: { postgresSchema: tenant_a }\n');
    expect(() => readServiceConfig({ AGENT_LEDGER_CONFIG: join(dir, 'stray.yaml') })).toThrow(expect.objectContaining({ field: 'store.postgresSchema' }) as Error);
  });
});

