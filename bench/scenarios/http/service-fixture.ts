/**
 * The real agent-ledger service for the `http` scenario: its fixtures (an
 * agents file with one scripted agent and a configuration file with one API
 * key, written into a fresh folder), how it is started (the built program
 * when it is up to date, else the sources through ts-node), and what it
 * says on `GET /metrics`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { CONFIG_FILE_KEYS } from '../../../apps/agent-ledger/src/config/config-file';
import { hashApiKey } from '../../../libs/http/src/auth/api-keys';
import { ChildServer } from './child-server';

/** The repository's root. */
export const REPOSITORY_ROOT = join(__dirname, '..', '..', '..');
const BUILT_SERVICE = 'apps/agent-ledger/dist/main.js';
const SOURCE_SERVICE = 'apps/agent-ledger/src/main.ts';
/** The sources the build is compared with. */
const SOURCE_FOLDERS = ['apps/agent-ledger/src', 'libs'];

/** The one agent of the scenario: the scripted model asks for the clock once, then answers. */
export const BENCH_AGENT = 'bench-clock';

/** The agents file of the benchmarks that start the service (http, cli): one cheap agent, {@link BENCH_AGENT}. */
export const BENCH_AGENTS_YAML = `# Written by a benchmark that starts the service (bench/scenarios/http, cli): one cheap agent.
agents:
  - name: ${BENCH_AGENT}
    description: Reads the clock once, then answers (scripted model, READ_ONLY built-in tool).
    instructions: Tell the user the current time.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: clock.now
        - final: I looked at the clock.
`;

/** How the service is started. */
export interface ServiceEntry {
  readonly kind: 'dist' | 'ts-node';
  readonly nodeArgs: readonly string[];
  /** Why this one, for the notes. */
  readonly reason: string;
}

function newestSourceMtimeMs(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') newest = Math.max(newest, newestSourceMtimeMs(path));
    } else if (entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec|sim-spec)\.ts$/.test(entry.name)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * The built service (`dist/.../main.js`) when it exists and is not older than
 * any source file of the service and the libraries (tests aside), as users
 * run it (`npm start`); otherwise the sources through ts-node in
 * transpile-only mode (slower to start, the same code once running).
 */
export function chooseServiceEntry(): ServiceEntry {
  const built = join(REPOSITORY_ROOT, BUILT_SERVICE);
  const tsNode: ServiceEntry['nodeArgs'] = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', SOURCE_SERVICE];
  if (!existsSync(built)) return { kind: 'ts-node', nodeArgs: tsNode, reason: `${BUILT_SERVICE} does not exist` };
  const builtAt = statSync(built).mtimeMs;
  const newest = Math.max(...SOURCE_FOLDERS.map((folder) => newestSourceMtimeMs(join(REPOSITORY_ROOT, folder))));
  if (newest > builtAt) return { kind: 'ts-node', nodeArgs: tsNode, reason: `${BUILT_SERVICE} is older than the sources (run npm run build to bench the build)` };
  return { kind: 'dist', nodeArgs: [built], reason: `${BUILT_SERVICE} is up to date` };
}

/** The environment of a child: the bench's own, without any setting of the service (they come from the configuration file). */
export function childEnvironment(extra: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  const serviceSettings = new Set<string>([...Object.values(CONFIG_FILE_KEYS), 'AGENT_LEDGER_CONFIG', 'AGENT_LEDGER_CRASH_POINTS', 'AGENT_LEDGER_CRASH_SEED', 'AGENT_LEDGER_TEST_LEDGER']);
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !serviceSettings.has(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/** A started service and how to call it. */
export interface BenchService {
  readonly server: ChildServer;
  /** `Authorization` header value for the API key (scopes `runs:submit`, `runs:read`, `metrics:read`). */
  readonly authorization: string;
}

/** Settings of one service. */
export interface BenchServiceOptions {
  /** A fresh folder: fixtures, data folder (embedded store, read models, workspace). */
  readonly folder: string;
  /** `workers.concurrency`: 0 for none (only the API appends); null for the default. */
  readonly workerConcurrency: number | null;
  readonly entry: ServiceEntry;
  readonly startTimeoutMs: number;
  /** Extra node options before the program, e.g. `--cpu-prof`. */
  readonly extraNodeArgs?: readonly string[];
  readonly name: string;
}

/**
 * Writes the fixtures and starts the service on them: the embedded store
 * (default durability) in a fresh data folder, `PORT` 0, API keys required,
 * `NODE_ENV=production` as a deployment would run it.
 */
export async function startBenchService(options: BenchServiceOptions): Promise<BenchService> {
  const key = randomBytes(32).toString('base64url');
  const agentsFile = join(options.folder, 'agents.yaml');
  const configFile = join(options.folder, 'agent-ledger.json');
  mkdirSync(options.folder, { recursive: true });
  writeFileSync(agentsFile, BENCH_AGENTS_YAML);
  const config = {
    server: { port: 0, host: '127.0.0.1' },
    store: { dataDir: join(options.folder, 'data') },
    agents: { configFile: agentsFile },
    ...(options.workerConcurrency === null ? {} : { workers: { concurrency: options.workerConcurrency } }),
    auth: { apiKeys: [{ id: 'bench', hash: hashApiKey(key, 'sha256'), scopes: ['runs:submit', 'runs:read', 'metrics:read'] }] },
  };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const server = await ChildServer.start({
    name: options.name,
    nodeArgs: [...(options.extraNodeArgs ?? []), ...options.entry.nodeArgs],
    env: childEnvironment({ AGENT_LEDGER_CONFIG: configFile, NODE_ENV: 'production', TS_NODE_TRANSPILE_ONLY: '1' }),
    cwd: REPOSITORY_ROOT,
    listeningLine: /agent-ledger listening on http:\/\/127\.0\.0\.1:(\d+)/,
    startTimeoutMs: options.startTimeoutMs,
  });
  return { server, authorization: `Bearer ${key}` };
}

/** The figures of `GET /metrics` the scenario reads. */
export interface ServiceFigures {
  /** `agent_ledger_segments_stopped_total`: segments ended in this process (exact, no lag); a run of the bench agent is one segment. */
  readonly segmentsEnded: number;
  /** `agent_ledger_runs{status}`: runs by status in the run-status read model (which follows the store a little behind). */
  readonly runsByStatus: Readonly<Record<string, number>>;
  /** `agent_ledger_projection_lag_events`, summed over the projections: how far the read models are behind. */
  readonly projectionLagEvents: number;
}

function getText(port: number, path: string, authorization: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, headers: { authorization } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.once('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${path}: no answer within 30 s`)));
    req.once('error', reject);
  });
}

/** Reads the service's `GET /metrics`. @throws when it does not answer 200. */
export async function readServiceFigures(service: BenchService): Promise<ServiceFigures> {
  const { status, body } = await getText(service.server.port, '/metrics', service.authorization);
  if (status !== 200) throw new Error(`GET /metrics answered ${status}: ${body.slice(0, 300)}`);
  let segmentsEnded = Number.NaN;
  let projectionLagEvents = 0;
  const runsByStatus: Record<string, number> = {};
  for (const line of body.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([a-z_]+)(?:\{([^}]*)\})?\s+(\S+)$/.exec(line);
    if (match === null) continue;
    const [, name, labels = '', value] = match;
    if (name === 'agent_ledger_segments_stopped_total') segmentsEnded = Number(value);
    if (name === 'agent_ledger_projection_lag_events') projectionLagEvents += Number(value);
    if (name === 'agent_ledger_runs') {
      const runStatus = /status="([^"]*)"/.exec(labels)?.[1];
      if (runStatus !== undefined) runsByStatus[runStatus] = Number(value);
    }
  }
  if (!Number.isFinite(segmentsEnded)) throw new Error('GET /metrics has no agent_ledger_segments_stopped_total');
  return { segmentsEnded, runsByStatus, projectionLagEvents };
}
