/**
 * Test support for the HTTP API's integration tests: the real application
 * (`AppModule.forRoot`, as `src/main.ts` builds it: configuration read from an
 * environment, embedded stores in a temp data folder, the agents file below)
 * listening on a free loopback port in this process, so that a test can reach
 * its providers (stores, read models) as well as its routes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AgentDefinition } from '@agent-ledger/runtime';
import { loadServiceDefinitions } from '../../config/service-definitions';
import type { ApiScope } from '@agent-ledger/http';
import { generateApiKey, hashApiKey } from '@agent-ledger/http';
import type { OpenStores } from '../../config/open-stores';
import { openStores } from '../../config/open-stores';
import type { ServiceConfig } from '../../config/service-config';
import { readServiceConfig } from '../../config/service-config';
import { createServiceApp } from '../../service-app';

/**
 * Two scripted agents on built-in tools: `clock` reads the time (no audit
 * record), `writer` writes a file (a pre-approved write: one audit record).
 */
export const TEST_AGENTS_YAML = `agents:
  - name: clock
    description: Tells the time.
    instructions: Tell the time.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: clock.now
        - final: tick
  - name: writer
    instructions: Write a report.
    tools: [files.write, clock.now]
    approvals: { preApproved: [files.write], onDenial: tellModel }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: report.txt, content: "report" }
        - final: written
`;

/** An API key for a test: the key, and its configuration entry. */
export interface HttpTestKey {
  readonly key: string;
  readonly entry: { readonly id: string; readonly hash: string; readonly scopes: readonly ApiScope[]; readonly agents?: readonly string[] };
}

/** A random key hashed with `sha256:`. */
export function httpTestKey(id: string, scopes: readonly ApiScope[], agents?: readonly string[]): HttpTestKey {
  const key = generateApiKey();
  return { key, entry: { id, hash: hashApiKey(key, 'sha256'), scopes, ...(agents === undefined ? {} : { agents }) } };
}

/** A running application. */
export interface HttpTestApp {
  readonly baseUrl: string;
  /** The application: its providers (`app.get(...)`) are the running service's. */
  readonly app: NestExpressApplication;
  readonly config: ServiceConfig;
  readonly stores: OpenStores;
  /** `fetch` on the app with `Authorization: Bearer <key>` (none when `key` is null). */
  call(method: string, path: string, options?: { readonly key?: HttpTestKey | null; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }): Promise<HttpTestAnswer>;
  /** Closes the app (as a SIGTERM would), the stores, and removes the data folder. */
  close(): Promise<void>;
}

/** An answer: status, headers, the body as text and (when it is JSON) parsed. */
export interface HttpTestAnswer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: T;
}

/** Options of {@link startHttpTestApp}. */
export interface HttpTestAppOptions {
  readonly keys?: readonly HttpTestKey[];
  readonly env?: Readonly<Record<string, string>>;
  /** Agents besides the agents file's, as loaded definitions (not checked against the known tools: `beforeListen` may register theirs). @default none */
  readonly extraAgents?: readonly AgentDefinition[];
  /** Called with the application before it starts (its providers exist, no module is initialised yet): e.g. to register tools. */
  readonly beforeListen?: (app: NestExpressApplication) => void;
}

/**
 * Starts the application with `keys` (none: the development mode) and
 * `env` on top of a fresh data folder (no workers unless `WORKER_CONCURRENCY` is given; they run in
 * this process: `WORKER_PROCESSES=0`, since a worker process could not load the sources Jest compiles).
 */
export async function startHttpTestApp(options: HttpTestAppOptions = {}): Promise<HttpTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-http-int-'));
  const agentsPath = join(dataDir, 'agents.yaml');
  writeFileSync(agentsPath, TEST_AGENTS_YAML);
  const keys = options.keys ?? [];
  const config = readServiceConfig(
    {
      AGENT_LEDGER_DATA_DIR: dataDir,
      EVENTSTORE_CONNECTION_STRING: '',
      AGENTS_CONFIG: agentsPath,
      WORKER_CONCURRENCY: '0',
      WORKER_PROCESSES: '0',
      REAPER_INTERVAL_MS: '0',
      CONSOLE_DIR: join(dataDir, 'console'),
      ...(keys.length === 0 ? {} : { API_KEYS: JSON.stringify(keys.map((k) => k.entry)) }),
      ...options.env,
    },
    dataDir,
  );
  mkdirSync(config.workspaceDir, { recursive: true });
  const loaded = await loadServiceDefinitions(config);
  // The loader's `structuredClone` makes the scripts' arguments in Node's own realm, not in Jest's sandbox, where the
  // store's plain-object check would refuse them: the definitions are copied into this realm (a test-only concern).
  const agents = [...(JSON.parse(JSON.stringify(loaded.agents)) as typeof loaded.agents), ...(options.extraAgents ?? [])];
  const stores = openStores(config);
  let app: NestExpressApplication;
  try {
    app = await createServiceApp({ config, stores, agents, logger: false });
    options.beforeListen?.(app);
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await stores.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    app,
    config,
    stores,
    async call(method, path, { key = null, body, headers = {} } = {}) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        redirect: 'manual',
        headers: { ...(key === null ? {} : { authorization: `Bearer ${key.key}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      const json = (response.headers.get('content-type') ?? '').startsWith('application/json') && text !== '' ? (JSON.parse(text) as unknown) : null;
      return { status: response.status, headers: response.headers, text, body: json };
    },
    async close() {
      try {
        await app.close();
      } finally {
        await stores.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
