/**
 * CLI response time (issue 26, section 5): how long `agent-ledger` takes to
 * answer, and how much memory it takes, for the verbs that do no I/O
 * (`--help`, `--version`), an HTTP verb (`runs list` against a running
 * service) and a store verb (`audit verify` on the service's store), run as
 * a user runs them: the BUILT CLI through its launcher,
 * `node apps/agent-ledger/bin/agent-ledger.js <args>`, one process per call.
 *
 * Method (docs/benchmarks.md, "CLI response time"):
 * 1. Once per scenario run, a service is started through the CLI,
 *    `agent-ledger serve` (port 0, one API key, an embedded store in a fresh
 *    data folder, `NODE_ENV=production`), and a few runs of a scripted agent
 *    are started and completed over HTTP, so that `runs list` prints rows and
 *    `audit verify` verifies chains.
 * 2. Each round calls every command once unmeasured (warm-up: the files in
 *    the page cache), then N times each, interleaved (call i of every
 *    command, in an order that rotates with i). A bare `node -e 0` is called
 *    the same way: the floor of any Node.js process on this machine.
 * 3. Wall time: from `spawn` to the child's `close` (its output read), in
 *    the bench process (`performance.now()`); per round, the median and the
 *    p90 (nearest rank) of the N calls. Peak RSS: the child's own peak
 *    resident set, `VmHWM` of its `/proc/self/status` (Linux), read by a
 *    preloaded probe (`node -r <probe>`, a few lines) when the process exits
 *    (not `process.resourceUsage().maxRSS`: see {@link RSS_PROBE}); per
 *    round, the largest of the N calls.
 *
 * The built CLI is required: a CLI run from its sources through ts-node
 * spends its time compiling. Without an up-to-date build (`npm run build`),
 * the scenario fails, except at its quick size (the smoke test), where it
 * runs the sources through ts-node and says so: the figures then mean
 * nothing.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hashApiKey } from '../../libs/http/src/auth/api-keys';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, quantile, ratioSamples } from '../support/stats';
import { ChildServer } from './http/child-server';
import { BENCH_AGENT, BENCH_AGENTS_YAML, childEnvironment, REPOSITORY_ROOT } from './http/service-fixture';

/** Calls of each command per round; the smoke size. */
export const CLI_CALLS = { full: 20, quick: 2 } as const;
/** The target of issue 26: `--help`, `--version` and an HTTP verb answer within this long (median). */
export const CLI_TARGET_MS = 300;
/** Runs started and completed before the measurement (what `runs list` lists and `audit verify` verifies). */
export const CLI_SEEDED_RUNS = { full: 20, quick: 3 } as const;

/** What a command is, for the variant. */
type CommandKind = 'no I/O' | 'HTTP' | 'store' | 'bare node';

/** One command measured. */
export interface CliCommand {
  /** Its name in the tables, e.g. `--help`, `runs list`. */
  readonly name: string;
  readonly kind: CommandKind;
  /** Whether issue 26's target (median < {@link CLI_TARGET_MS}) applies. */
  readonly targeted: boolean;
}

/** The commands of each round, in their order for the first call. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  { name: '--help', kind: 'no I/O', targeted: true },
  { name: '--version', kind: 'no I/O', targeted: true },
  { name: 'runs list', kind: 'HTTP', targeted: true },
  { name: 'audit verify', kind: 'store', targeted: false },
  { name: 'node -e 0', kind: 'bare node', targeted: false },
];

const BUILT_CLI = 'apps/agent-ledger/dist/cli/main.js';
const LAUNCHER = 'apps/agent-ledger/bin/agent-ledger.js';
const SOURCE_CLI = 'apps/agent-ledger/src/cli/main.ts';
/** The projects whose build the CLI runs: the service and every library. */
const PROJECT_ROOTS = ['apps/agent-ledger', ...readdirSync(join(REPOSITORY_ROOT, 'libs')).map((name) => `libs/${name}`)];
/**
 * The probe preloaded into each measured call: at the process's exit, writes
 * its peak RSS in KiB, and where the figure comes from, to the file
 * `AGENT_LEDGER_BENCH_RSS_FILE` names. On Linux, `VmHWM` of `/proc/self/status`:
 * the peak of this process's own memory since its `exec`.
 * `process.resourceUsage().maxRSS` (getrusage's `ru_maxrss`) is the fallback
 * elsewhere, but not the measure: Linux carries into it the peak of the
 * process before its `exec`, a `fork` of the bench process, so that every
 * call would weigh at least what the bench process weighed.
 */
const RSS_PROBE = `'use strict';
process.once('exit', () => {
  const file = process.env.AGENT_LEDGER_BENCH_RSS_FILE;
  if (!file) return;
  const fs = require('node:fs');
  let status = '';
  try {
    status = fs.readFileSync('/proc/self/status', 'utf8');
  } catch {}
  const hwm = /^VmHWM:\\s+(\\d+) kB$/m.exec(status);
  fs.writeFileSync(file, hwm ? hwm[1] + ' VmHWM' : process.resourceUsage().maxRSS + ' maxRSS');
});
`;

/** How the CLI is started: node's arguments before the CLI's own. */
export interface CliEntry {
  readonly kind: 'built' | 'ts-node';
  readonly nodeArgs: readonly string[];
  /** Why this one, for the notes. */
  readonly reason: string;
}

function newestMtimeMs(folder: string, counts: (name: string) => boolean): number {
  if (!existsSync(folder)) return 0;
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') newest = Math.max(newest, newestMtimeMs(path, counts));
    } else if (counts(entry.name)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

const isSource = (name: string) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !/\.(spec|int-spec|e2e-spec|sim-spec|browser-spec)\.ts$/.test(name);

/**
 * The project (the service or a library) whose sources are newer than its
 * build, or null when every build is up to date. `tsc -b` re-emits only the
 * files that changed, so a project's build is as new as the newest file of
 * its `dist` (its `.tsbuildinfo` included), not as its `main.js`.
 */
export function staleBuild(): string | null {
  for (const project of PROJECT_ROOTS) {
    const sources = newestMtimeMs(join(REPOSITORY_ROOT, project, 'src'), isSource);
    const built = newestMtimeMs(join(REPOSITORY_ROOT, project, 'dist'), () => true);
    if (sources > built) return project;
  }
  return null;
}

/**
 * The built CLI through its launcher when the build is there and up to date;
 * else, at the quick size only, the sources through ts-node (transpile only).
 *
 * @throws at the full size when the build is missing or older than its sources
 */
export function chooseCliEntry(quick: boolean): CliEntry {
  const missing = existsSync(join(REPOSITORY_ROOT, BUILT_CLI)) ? null : `${BUILT_CLI} does not exist`;
  const stale = missing === null ? staleBuild() : null;
  const why = missing ?? (stale === null ? null : `the build of ${stale} is older than its sources`);
  if (why === null) return { kind: 'built', nodeArgs: [join(REPOSITORY_ROOT, LAUNCHER)], reason: `the built CLI (${LAUNCHER}, ${BUILT_CLI} up to date)` };
  if (!quick) throw new Error(`the cli scenario measures the built CLI: ${why}; run npm run build first`);
  return {
    kind: 'ts-node',
    nodeArgs: ['-r', require.resolve('ts-node/register/transpile-only'), '-r', require.resolve('tsconfig-paths/register'), join(REPOSITORY_ROOT, SOURCE_CLI)],
    reason: `the sources through ts-node (${why}): QUICK, the figures mean nothing`,
  };
}

/** What one call took. */
interface CallFigures {
  readonly wallMs: number;
  readonly peakRssMb: number;
  /** Where the peak RSS comes from: `VmHWM` (Linux) or `maxRSS`. */
  readonly rssSource: string;
}

/** One call's command line and environment. */
interface CallSpec {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** What its standard output must hold, so that a wrong answer is never timed as a right one. */
  readonly expect: RegExp;
}

/** Runs one call to its end and measures it; throws on an exit code other than 0 or an unexpected output. */
function measuredCall(name: string, nodeArgs: readonly string[], spec: CallSpec, cwd: string, probe: string, timeoutMs: number): Promise<CallFigures> {
  const rssFile = join(cwd, `rss-${randomBytes(6).toString('hex')}.txt`);
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, ['-r', probe, ...nodeArgs, ...spec.args], { cwd, env: { ...spec.env, AGENT_LEDGER_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      const wallMs = performance.now() - began;
      clearTimeout(killer);
      try {
        if (code !== 0 || !spec.expect.test(stdout)) {
          throw new Error(`${name}: exit code ${String(code)}, signal ${String(signal)}${code === 0 ? `, output without ${String(spec.expect)}` : ''}\nstdout:\n${stdout.slice(0, 2000)}\nstderr:\n${stderr.slice(0, 2000)}`);
        }
        const [figure, rssSource = ''] = readFileSync(rssFile, 'utf8').split(' ');
        rmSync(rssFile, { force: true });
        const kib = Number(figure);
        if (!Number.isFinite(kib) || kib <= 0) throw new Error(`${name}: the probe wrote no peak RSS`);
        resolve({ wallMs, peakRssMb: kib / 1024, rssSource });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** A running service with a few completed runs, started through `agent-ledger serve`. */
interface SeededService {
  readonly server: ChildServer;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly configFile: string;
}

async function startSeededService(entry: CliEntry, folder: string, runs: number, timeoutMs: number): Promise<SeededService> {
  const apiKey = randomBytes(32).toString('base64url');
  const agentsFile = join(folder, 'agents.yaml');
  const configFile = join(folder, 'agent-ledger.json');
  writeFileSync(agentsFile, BENCH_AGENTS_YAML);
  const config = {
    server: { port: 0, host: '127.0.0.1' },
    store: { dataDir: join(folder, 'data') },
    agents: { configFile: agentsFile },
    auth: { apiKeys: [{ id: 'bench', hash: hashApiKey(apiKey, 'sha256'), scopes: ['runs:submit', 'runs:read'] }] },
  };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const server = await ChildServer.start({
    name: 'agent-ledger serve',
    nodeArgs: [...entry.nodeArgs, 'serve'],
    env: childEnvironment({ AGENT_LEDGER_CONFIG: configFile, NODE_ENV: 'production', TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: join(REPOSITORY_ROOT, 'tsconfig.json') }),
    cwd: folder,
    listeningLine: /agent-ledger listening on http:\/\/127\.0\.0\.1:(\d+)/,
    startTimeoutMs: timeoutMs,
  });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  try {
    await seedRuns(baseUrl, apiKey, runs, timeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { server, baseUrl, apiKey, configFile };
}

/** Starts `runs` runs of the bench agent over HTTP and waits until the run-status read model shows them completed. */
async function seedRuns(baseUrl: string, apiKey: string, runs: number, timeoutMs: number): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  for (let i = 0; i < runs; i++) {
    const response = await fetch(`${baseUrl}/runs`, { method: 'POST', headers, body: JSON.stringify({ agent: BENCH_AGENT, input: `run ${i}`, runId: `cli-bench-${i}` }) });
    if (response.status !== 202) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/runs?status=COMPLETED&limit=1000`, { headers });
    const page = (await response.json()) as { runs?: unknown[] };
    if ((page.runs?.length ?? 0) >= runs) return;
    if (Date.now() > deadline) throw new Error(`${runs} runs did not complete within ${timeoutMs} ms (${page.runs?.length ?? 0} did)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The command line, environment and expected output of each command. */
function callSpecs(service: SeededService, runs: number): ReadonlyMap<string, CallSpec> {
  const env = childEnvironment({ TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: join(REPOSITORY_ROOT, 'tsconfig.json') });
  return new Map<string, CallSpec>([
    ['--help', { args: ['--help'], env, expect: /^Usage: agent-ledger <command>/ }],
    ['--version', { args: ['--version'], env, expect: /^\d+\.\d+\.\d+/ }],
    ['runs list', { args: ['runs', 'list', '--limit', String(runs)], env: { ...env, AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: service.apiKey }, expect: /cli-bench-0\s+bench-clock/ }],
    ['audit verify', { args: ['audit', 'verify', '--config', service.configFile], env, expect: /^Stores read: embedded SQLite/ }],
    ['node -e 0', { args: [], env, expect: /^$/ }],
  ]);
}

/** CLI response time: `--help`, `--version`, an HTTP verb and a store verb of the built CLI, against bare node. */
export const cliScenario: BenchScenario = {
  name: 'cli',
  title: 'CLI response time: wall time and peak RSS of agent-ledger --help, --version, runs list (HTTP), audit verify (store), one process per call',
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const calls = context.quick ? CLI_CALLS.quick : CLI_CALLS.full;
    const runs = context.quick ? CLI_SEEDED_RUNS.quick : CLI_SEEDED_RUNS.full;
    const entry = chooseCliEntry(context.quick);
    const callTimeoutMs = entry.kind === 'built' ? 60_000 : 180_000;
    const folder = context.tempDir('cli');
    mkdirSync(folder, { recursive: true });
    const probe = join(folder, 'rss-probe.js');
    writeFileSync(probe, RSS_PROBE);
    context.log(`CLI: ${entry.reason}; starting agent-ledger serve and ${runs} runs`);
    const service = await startSeededService(entry, folder, runs, entry.kind === 'built' ? 120_000 : 300_000);
    const samples = new Map(CLI_COMMANDS.map((c) => [c.name, { median: [] as number[], p90: [] as number[], peakRss: [] as number[] }]));
    const rssSources = new Set<string>();
    try {
      const specs = callSpecs(service, runs);
      const call = (command: CliCommand) => {
        const spec = specs.get(command.name) as CallSpec;
        const nodeArgs = command.kind === 'bare node' ? ['-e', '0'] : entry.nodeArgs;
        return measuredCall(command.name, nodeArgs, spec, folder, probe, callTimeoutMs).then((figures) => {
          rssSources.add(figures.rssSource);
          return figures;
        });
      };
      for (let round = 0; round < context.rounds; round++) {
        for (const command of CLI_COMMANDS) await call(command); // warm-up, not counted
        const figures = new Map(CLI_COMMANDS.map((c) => [c.name, [] as CallFigures[]]));
        for (let i = 0; i < calls; i++) {
          for (let k = 0; k < CLI_COMMANDS.length; k++) {
            const command = CLI_COMMANDS[(i + k) % CLI_COMMANDS.length] as CliCommand;
            (figures.get(command.name) as CallFigures[]).push(await call(command));
          }
        }
        for (const command of CLI_COMMANDS) {
          const taken = figures.get(command.name) as CallFigures[];
          const s = samples.get(command.name) as { median: number[]; p90: number[]; peakRss: number[] };
          const walls = taken.map((f) => f.wallMs);
          s.median.push(median(walls));
          s.p90.push(quantile(walls, 0.9));
          s.peakRss.push(Math.max(...taken.map((f) => f.peakRssMb)));
        }
        context.log(
          `round ${round + 1}: ${CLI_COMMANDS.map((c) => `${c.name} ${formatNumber((samples.get(c.name) as { median: number[] }).median[round] as number)} ms`).join(', ')} (medians of ${calls} calls)`,
        );
      }
    } finally {
      await service.server.stop();
    }

    const measurements: Measurement[] = [];
    const ratios: Ratio[] = [];
    const bare = samples.get('node -e 0') as { median: number[] };
    for (const command of CLI_COMMANDS) {
      const s = samples.get(command.name) as { median: number[]; p90: number[]; peakRss: number[] };
      const subject = command.kind === 'bare node' ? 'baseline' : 'product';
      const variant = { command: command.name, kind: command.kind, calls };
      measurements.push(
        { subject, variant, metric: 'median wall time', unit: 'ms', better: 'lower', samples: s.median },
        { subject, variant, metric: 'p90 wall time', unit: 'ms', better: 'lower', samples: s.p90 },
        { subject, variant, metric: 'peak RSS', unit: 'MB', better: 'lower', samples: s.peakRss },
      );
      if (command.kind !== 'bare node') ratios.push({ name: `${command.name} / bare node: median wall time`, variant: { command: command.name }, samples: ratioSamples(s.median, bare.median), better: 'lower' });
    }
    const quickNote = context.quick ? '; QUICK' : '';
    const entryNote = entry.kind === 'built' ? '' : ', sources through ts-node';
    const targets: TargetCheck[] = CLI_COMMANDS.filter((c) => c.targeted).map((command) => {
      const s = samples.get(command.name) as { median: number[]; p90: number[]; peakRss: number[] };
      const m = median(s.median);
      return {
        target: `agent-ledger ${command.name}${command.kind === 'HTTP' ? ' (an HTTP verb)' : ''}: median wall time < ${CLI_TARGET_MS} ms`,
        measured: `${formatNumber(m)} ms (p90 ${formatNumber(median(s.p90))} ms, peak RSS ${formatNumber(median(s.peakRss))} MB; ${calls} calls x ${context.rounds} round(s)${quickNote}${entryNote}; bare node ${formatNumber(median(bare.median))} ms)`,
        met: m < CLI_TARGET_MS,
      };
    });
    const store = samples.get('audit verify') as { median: number[]; peakRss: number[] };
    const notes = [
      `CLI: ${entry.reason}; each call a process of its own: node -r <rss probe> ${entry.kind === 'built' ? LAUNCHER : SOURCE_CLI} <args>, in a fresh folder, the bench's environment without the service's settings`,
      `service: agent-ledger serve (same CLI) on port 0, NODE_ENV=production, one API key, embedded store in a fresh data folder, ${runs} completed runs of a scripted agent (clock.now, then an answer); runs list: --limit ${runs}, AGENT_LEDGER_URL and AGENT_LEDGER_API_KEY; audit verify: --config <the service's file>, while the service runs (idle)`,
      `store verb: audit verify ${formatNumber(median(store.median))} ms, peak RSS ${formatNumber(median(store.peakRss))} MB (no target: it pays for the stores it opens and the chains it verifies)`,
      `wall time: spawn to close in the bench process; peak RSS: the child's ${[...rssSources].join(' or ')} at its exit (${rssSources.has('maxRSS') ? 'process.resourceUsage().maxRSS, no /proc here: it may hold the RSS of the bench process the call was forked from' : 'VmHWM of /proc/self/status: its own peak since exec'}), KiB / 1024; each round: one unmeasured call of each command, then ${calls} of each, interleaved`,
    ];
    return { measurements, ratios, targets, notes };
  },
};
