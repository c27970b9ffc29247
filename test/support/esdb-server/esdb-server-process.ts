import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { StandaloneReady, StandaloneStats } from './standalone-protocol';
import { READY_LINE_PREFIX, STOPPED_LINE_PREFIX } from './standalone-protocol';
import { scaled } from '../time-scale';

const root = join(__dirname, '..', '..', '..');

/** Options of {@link startEsdbTestServerProcess}. */
export interface EsdbTestServerProcessOptions {
  /** Arguments of `standalone.ts` (`--port`, `--host`). @default none */
  readonly args?: readonly string[];
  /** Each line the process prints (stdout and stderr), e.g. to a log file. */
  readonly onLine?: (line: string) => void;
  /** How long it may take to print its ready line (scaled with `scaled()`). @default 60000 */
  readonly startTimeoutMs?: number;
}

/** The test server running as a process of its own (`standalone.ts`). */
export interface EsdbTestServerProcess extends StandaloneReady {
  readonly child: ChildProcess;
  /** `GET /stats`: the refused appends so far. */
  stats(): Promise<StandaloneStats>;
  /** SIGTERM, then waits for the exit (SIGKILL after 15 s); resolves with the stats it printed on its way out, null when it printed none. */
  stop(): Promise<StandaloneStats | null>;
}

/**
 * Starts `test/support/esdb-server/standalone.ts` as a child process (through ts-node, transpile
 * only) and resolves once it printed its ready line. Rejects, killing it, when it ends or stays
 * silent past the start timeout.
 */
export async function startEsdbTestServerProcess(options: EsdbTestServerProcessOptions = {}): Promise<EsdbTestServerProcess> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join('test', 'support', 'esdb-server', 'standalone.ts'), ...(options.args ?? [])], {
    cwd: root,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: 'tsconfig.json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let ready: ((value: StandaloneReady) => void) | undefined;
  let stoppedStats: StandaloneStats | null = null;
  const readyLine = new Promise<StandaloneReady>((resolve) => (ready = resolve));
  let pending = '';
  const onData = (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (lines.length > 200) lines.shift();
      options.onLine?.(line);
      if (line.startsWith(READY_LINE_PREFIX)) ready?.(JSON.parse(line.slice(READY_LINE_PREFIX.length)) as StandaloneReady);
      if (line.startsWith(STOPPED_LINE_PREFIX)) stoppedStats = JSON.parse(line.slice(STOPPED_LINE_PREFIX.length)) as StandaloneStats;
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const timeoutMs = scaled(options.startTimeoutMs ?? 60_000);
  let timer: NodeJS.Timeout | undefined;
  const started = await Promise.race([
    readyLine,
    exited.then(({ code, signal }) => new Error(`the EventStoreDB test server process ended (code ${code}, signal ${signal}) before it was ready:\n${lines.join('\n')}`)),
    new Promise<Error>((resolve) => (timer = setTimeout(() => resolve(new Error(`the EventStoreDB test server process was not ready after ${timeoutMs} ms:\n${lines.join('\n')}`)), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (started instanceof Error) {
    child.kill('SIGKILL');
    throw started;
  }
  return {
    ...started,
    child,
    async stats() {
      const response = await fetch(started.statsUrl, { signal: AbortSignal.timeout(scaled(10_000)) });
      if (response.status !== 200) throw new Error(`GET ${started.statsUrl} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as StandaloneStats;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const { code, signal } = await exited;
      clearTimeout(killer);
      if (code !== 0 && signal !== 'SIGTERM') throw new Error(`the EventStoreDB test server process ended with code ${code}, signal ${signal}:\n${lines.slice(-20).join('\n')}`);
      return stoppedStats;
    },
  };
}
