/**
 * The crash tests' processes: the service (`main.js`, HTTP + workers +
 * reaper + saga + read models) and `agent-ledger worker` processes, started
 * as children on one data folder, each with its output in a log file, killed
 * with SIGKILL by the harness or by their own crash points, and started again.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { WriteStream } from 'node:fs';
import { join } from 'node:path';
import { CRASH_LINE_PREFIX } from '../../../apps/agent-ledger/src/config/crash-test/crash-point-killer';
import { entryArgs } from '../../e2e/support/entry-point';
import { scaled } from '../../support/time-scale';

const root = join(__dirname, '..', '..', '..');
/** Nest's log colours, removed from the logs. */
const ANSI_COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** What a process is. */
export type ProcessKind = 'serve' | 'worker';

/** The crash points armed in one incarnation (`AGENT_LEDGER_CRASH_POINTS`, `AGENT_LEDGER_CRASH_SEED`). */
export interface Arming {
  readonly spec: string;
  readonly seed: number;
}

/** How an incarnation ended. */
export interface ProcessExit {
  readonly process: string;
  readonly incarnation: number;
  readonly pid: number;
  /**
   * `point`: it killed itself at a crash point; `external`: the harness
   * killed it (a random SIGKILL); `stopped`: the harness stopped it with
   * SIGTERM; `unexpected`: it ended on its own (a bug, or a start-up failure).
   */
  readonly cause: 'point' | 'external' | 'stopped' | 'unexpected';
  /** The crash point that killed it, with where it was reached (the line it printed). */
  readonly point: string | null;
  readonly crashLine: string | null;
  readonly armed: string | null;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Whether it had become ready (listening, or "worker started") before it ended. */
  readonly wasReady: boolean;
  /** ms since the scenario started. */
  readonly at: number;
  /** The last lines it printed. */
  readonly tail: string;
}

/** One supervised process: started, killed and started again by the scenario. */
export class ManagedProcess {
  private child: ChildProcess | null = null;
  private incarnation = 0;
  private up = false;
  private killedByHarness = false;
  private stopping = false;
  private port: number | null = null;
  private exited: Promise<void> = Promise.resolve();
  private armedNow: Arming | null = null;
  /**
   * Tells a death no crash line announced (a SIGKILL from outside the harness): the line that explains it (the
   * MCP server that killed its client in the middle of a call, `mcp-workload.ts`) and its point's name, or null.
   */
  explainDeath: ((pid: number) => { readonly point: string; readonly line: string } | null) | null = null;

  constructor(
    readonly name: string,
    readonly kind: ProcessKind,
    private readonly env: Readonly<Record<string, string>>,
    private readonly log: WriteStream,
    private readonly startedAt: number,
    private readonly onExit: (exit: ProcessExit) => void,
    private readonly workerArgs: readonly string[] = ['--concurrency', '2'],
  ) {}

  /** Starts an incarnation (the previous one must have ended). */
  start(arming: Arming | null): void {
    if (this.child !== null) throw new Error(`${this.name} is running already`);
    this.incarnation += 1;
    const incarnation = this.incarnation;
    this.killedByHarness = false;
    this.stopping = false;
    this.up = false;
    this.port = null;
    this.armedNow = arming;
    const args = this.kind === 'serve' ? entryArgs('service') : [...entryArgs('cli'), 'worker', ...this.workerArgs];
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...this.env };
    delete env.AGENT_LEDGER_CRASH_POINTS;
    delete env.AGENT_LEDGER_CRASH_SEED;
    if (arming !== null) {
      env.AGENT_LEDGER_CRASH_POINTS = arming.spec;
      env.AGENT_LEDGER_CRASH_SEED = String(arming.seed);
    }
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const label = `[${this.name}#${incarnation} pid ${child.pid ?? '?'}]`;
    this.log.write(`${label} started${arming === null ? '' : ` armed ${arming.spec} seed ${arming.seed}`} at +${Date.now() - this.startedAt} ms\n`);
    let pending = '';
    let tail: string[] = [];
    let crashLine: string | null = null;
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) {
        const line = raw.replace(ANSI_COLOURS, '');
        this.log.write(`${label} ${line}\n`);
        tail.push(line);
        if (tail.length > 40) tail = tail.slice(-40);
        if (line.includes(CRASH_LINE_PREFIX)) crashLine = line.slice(line.indexOf(CRASH_LINE_PREFIX));
        if (!this.up) {
          const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
          if (this.kind === 'serve' && listening !== null) {
            this.port = Number(listening[1]);
            this.up = true;
          }
          if (this.kind === 'worker' && line.includes('agent-ledger worker started')) this.up = true;
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.exited = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        if (pending !== '') onData(Buffer.from('\n'));
        const wasReady = this.up;
        this.up = false;
        this.child = null;
        const explained = crashLine === null && !this.killedByHarness && signal === 'SIGKILL' ? (this.explainDeath?.(child.pid ?? -1) ?? null) : null;
        if (explained !== null) crashLine = explained.line;
        const cause: ProcessExit['cause'] = crashLine !== null ? 'point' : this.killedByHarness ? 'external' : this.stopping ? 'stopped' : 'unexpected';
        const point = explained !== null ? explained.point : crashLine === null ? null : (/point=(\w+)/.exec(crashLine)?.[1] ?? null);
        this.log.write(`${label} ended: ${cause}${point === null ? '' : ` at ${point}`} (code ${code}, signal ${signal}) at +${Date.now() - this.startedAt} ms\n`);
        resolve();
        this.onExit({
          process: this.name,
          incarnation,
          pid: child.pid ?? -1,
          cause,
          point,
          crashLine,
          armed: this.armedNow?.spec ?? null,
          code,
          signal,
          wasReady,
          at: Date.now() - this.startedAt,
          tail: tail.join('\n'),
        });
      });
    });
  }

  /** Whether an incarnation runs and is ready. */
  isUp(): boolean {
    return this.up && this.child !== null;
  }

  /** Whether an incarnation runs (ready or not). */
  isRunning(): boolean {
    return this.child !== null;
  }

  /** The pid of the running incarnation, or null. */
  pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The crash points of the running incarnation. */
  arming(): Arming | null {
    return this.child === null ? null : this.armedNow;
  }

  /** The service's base URL while it is up. */
  baseUrl(): string | null {
    return this.kind === 'serve' && this.isUp() && this.port !== null ? `http://127.0.0.1:${this.port}` : null;
  }

  /** SIGKILL from the harness (a random kill); resolves when it has ended. */
  async kill(): Promise<void> {
    if (this.child === null) return;
    this.killedByHarness = true;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (SIGKILL after 15 s); resolves when it has ended. */
  async stop(): Promise<void> {
    if (this.child === null) return;
    this.stopping = true;
    this.child.kill('SIGTERM');
    const child = this.child;
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(killer);
  }
}

/** Runs a CLI command to its end (no crash points), e.g. `projections rebuild`. */
export function runCli(args: readonly string[], env: Readonly<Record<string, string>>, timeoutMs = 120_000): Promise<{ code: number | null; output: string }> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...env };
  delete childEnv.AGENT_LEDGER_CRASH_POINTS;
  delete childEnv.AGENT_LEDGER_CRASH_SEED;
  const child = spawn(process.execPath, [...entryArgs('cli'), ...args], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), scaled(timeoutMs));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
