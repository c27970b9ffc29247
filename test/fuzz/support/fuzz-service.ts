/**
 * The real service, built in this process as `apps/agent-ledger/src/main.ts`
 * builds it (configuration read from an environment, stores opened on a temp
 * data folder, `AppModule.forRoot`, the JSON body parser with its limit, the
 * OpenAPI document), listening on an ephemeral port of 127.0.0.1 so that every
 * request goes through the real HTTP stack: Node's HTTP server, Express, the
 * body parsers, the API key guard, the validation pipe and the exception
 * filter. No worker and no reaper run (`WORKER_CONCURRENCY=0`,
 * `REAPER_INTERVAL_MS=0`): nothing appends to the stores but the requests, so
 * that a request's effect on the stores can be measured.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import Database from 'better-sqlite3';
import { loadServiceDefinitions } from '../../../apps/agent-ledger/src/config/service-definitions';
import { openStores } from '../../../apps/agent-ledger/src/config/open-stores';
import { readServiceConfig } from '../../../apps/agent-ledger/src/config/service-config';
import type { ServiceConfig } from '../../../apps/agent-ledger/src/config/service-config';
import { createServiceApp } from '../../../apps/agent-ledger/src/service-app';

const repoRoot = join(__dirname, '..', '..', '..');

/** A line the service logged at level `error` (a server fault is logged with its stack). */
export interface LoggedError {
  readonly context: string;
  readonly message: string;
}

/** The service running in this process. */
export interface FuzzService {
  readonly baseUrl: string;
  readonly port: number;
  readonly config: ServiceConfig;
  readonly dataDir: string;
  readonly workspaceDir: string;
  /** Total events in the run store and the audit store, read from their SQLite files (not through the service). */
  eventCount(): { readonly runs: number; readonly audit: number; readonly total: number };
  /** The head of `$all` (the last event's position, 0 when empty) of the run store and of the audit store, read from their SQLite files. */
  allHead(): { readonly runs: number; readonly audit: number };
  /** The `RunRequested` event of a run, read from the run store's file; null when the run was never requested. */
  runRequested(runId: string): { readonly agent: string; readonly input: unknown } | null;
  /** The events of a stream (type and data), read from the run store's file. */
  streamEvents(stream: string): ReadonlyArray<{ readonly type: string; readonly data: Record<string, unknown> }>;
  /** Errors the service logged so far. */
  loggedErrors(): readonly LoggedError[];
  close(): Promise<void>;
}

/** A logger that keeps errors (to report server faults) and drops the rest. */
class CollectingLogger implements LoggerService {
  readonly errors: LoggedError[] = [];
  log(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
  fatal(message: unknown, ...rest: unknown[]): void {
    this.error(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : '';
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? `\n${rest[0]}` : '';
    this.errors.push({ context, message: `${String(message)}${stack}` });
  }
}

/**
 * Starts the service with `agentsYaml` and the environment `env` (on top of a
 * fresh data folder, the audit streams in a store file of their own).
 */
export async function startFuzzService(options: { readonly agentsYaml: string; readonly env?: Readonly<Record<string, string>> }): Promise<FuzzService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-fuzz-http-'));
  const agentsPath = join(dataDir, 'agents.yaml');
  writeFileSync(agentsPath, options.agentsYaml);
  const auditPath = join(dataDir, 'audit.sqlite');
  const config = readServiceConfig(
    {
      AGENT_LEDGER_DATA_DIR: dataDir,
      EVENTSTORE_CONNECTION_STRING: '',
      AUDIT_STORE_PATH: auditPath,
      AGENTS_CONFIG: agentsPath,
      WORKER_CONCURRENCY: '0',
      REAPER_INTERVAL_MS: '0',
      PORT: '0',
      HOST: '127.0.0.1',
      ...options.env,
    },
    repoRoot,
  );
  // As src/main.ts starts the service.
  mkdirSync(config.dataDir, { recursive: true });
  mkdirSync(config.workspaceDir, { recursive: true });
  const loaded = await loadServiceDefinitions(config);
  // The loader's `structuredClone` makes the scripts' arguments in Node's own realm, not in Jest's sandbox, where the
  // store's plain-object check would refuse them: the definitions are copied into this realm (a test-only concern).
  const agents = JSON.parse(JSON.stringify(loaded.agents)) as typeof loaded.agents;
  const stores = openStores(config);
  const logger = new CollectingLogger();
  const app = await createServiceApp({ config, stores, agents, logger });
  await app.listen(config.port, config.host);
  const port = (app.getHttpServer().address() as AddressInfo).port;

  const runDb = new Database(config.eventStorePath as string, { readonly: true, fileMustExist: true });
  const auditDb = new Database(auditPath, { readonly: true, fileMustExist: true });
  const count = (db: Database.Database) => (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  const head = (db: Database.Database) => (db.prepare('SELECT COALESCE(MAX(position), 0) AS p FROM events').get() as { p: number }).p;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    config,
    dataDir,
    workspaceDir: config.workspaceDir,
    eventCount() {
      const runs = count(runDb);
      const audit = count(auditDb);
      return { runs, audit, total: runs + audit };
    },
    allHead() {
      return { runs: head(runDb), audit: head(auditDb) };
    },
    runRequested(runId) {
      const row = runDb.prepare('SELECT data FROM events WHERE stream_name = ? AND revision = 0').get(`run-${runId}`) as { data: string } | undefined;
      if (row === undefined) return null;
      const data = JSON.parse(row.data) as { agent: string; input: unknown };
      return { agent: data.agent, input: data.input };
    },
    streamEvents(stream) {
      const rows = runDb.prepare('SELECT event_type AS type, data FROM events WHERE stream_name = ? ORDER BY revision').all(stream) as Array<{ type: string; data: string }>;
      return rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown> }));
    },
    loggedErrors: () => logger.errors,
    async close() {
      runDb.close();
      auditDb.close();
      await app.close();
      await stores.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
