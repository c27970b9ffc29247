/**
 * A server of the `http` scenario started as a child process (the service,
 * or the baseline server): its port read from the line it prints when it
 * listens, its CPU time read from `/proc`, and its end awaited. Every child
 * started here is registered from its spawn to its end, so that
 * {@link stopAllChildServers} (called in a `finally`) and a last-resort
 * `exit` hook end whatever is left.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Nest's log colours, removed before the output is matched. */
const ANSI_COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
/** Lines of output kept for error messages. */
const TAIL_LINES = 40;

/** How to start a child server. */
export interface ChildServerSpec {
  /** A name for messages, e.g. `service workers=off`. */
  readonly name: string;
  /** Node's arguments (options, then the program and its arguments). */
  readonly nodeArgs: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Matches the line that says the server listens; its first group is the port. */
  readonly listeningLine: RegExp;
  /** How long it may take to listen (ts-node on a loaded machine takes a while). */
  readonly startTimeoutMs: number;
}

const running = new Set<ChildServer>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort: the bench process ends (process.exit, an uncaught error) with children still up.
  process.once('exit', () => {
    for (const server of running) server.killNow();
  });
}

/** A child server. Start one with {@link ChildServer.start}. */
export class ChildServer {
  private readonly tail: string[] = [];
  private readonly closed: Promise<void>;
  private exitDescription: string | null = null;
  private listeningPort: number | null = null;

  private constructor(
    private readonly spec: ChildServerSpec,
    private readonly child: ChildProcess,
  ) {
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) this.onLine(raw.replace(ANSI_COLOURS, ''));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.closed = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        if (pending !== '') this.onLine(pending.replace(ANSI_COLOURS, ''));
        this.exitDescription = `exit code ${String(code)}, signal ${String(signal)}`;
        running.delete(this);
        resolve();
      });
    });
  }

  /**
   * Starts a child and resolves once it prints its listening line.
   * @throws when it cannot be spawned, exits first, or does not listen within
   *   `startTimeoutMs` (it is then killed); the message carries its last lines.
   */
  static async start(spec: ChildServerSpec): Promise<ChildServer> {
    installExitHook();
    const child = spawn(process.execPath, [...spec.nodeArgs], { cwd: spec.cwd, env: { ...spec.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new ChildServer(spec, child);
    running.add(server);
    try {
      await server.untilListening(child);
      return server;
    } catch (error) {
      child.kill('SIGKILL');
      await server.closed;
      throw error;
    }
  }

  /** A name for messages. */
  get name(): string {
    return this.spec.name;
  }

  /** The port it listens on, on 127.0.0.1. */
  get port(): number {
    if (this.listeningPort === null) throw new Error(`${this.name} is not listening`);
    return this.listeningPort;
  }

  /** The child's process id. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** How it ended (exit code and signal); null while it runs. */
  get exited(): string | null {
    return this.exitDescription;
  }

  /** Its last lines of output. */
  lastLines(): string {
    return this.tail.join('\n');
  }

  /** CPU time (user + system) it has used so far, in ms, from `/proc/<pid>/stat`; null where `/proc` is not there (not Linux) or once it has ended. */
  cpuMs(): number | null {
    return this.exitDescription === null ? processCpuMs(this.pid) : null;
  }

  /** SIGTERM (its clean shutdown), then SIGKILL after `graceMs`; resolves when it has ended. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exitDescription !== null) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.closed;
    clearTimeout(killer);
  }

  /** SIGKILL at once, without waiting (the exit hook). */
  killNow(): void {
    if (this.exitDescription === null) this.child.kill('SIGKILL');
  }

  private onLine(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    if (this.listeningPort === null) {
      const match = this.spec.listeningLine.exec(line);
      if (match !== null) this.listeningPort = Number(match[1]);
    }
  }

  private untilListening(child: ChildProcess): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const check = setInterval(() => {
        if (this.listeningPort !== null) {
          clearInterval(check);
          resolve();
        } else if (this.exitDescription !== null) {
          clearInterval(check);
          reject(new Error(`${this.name} ended before it listened (${this.exitDescription}); last lines:\n${this.lastLines()}`));
        } else if (Date.now() - started > this.spec.startTimeoutMs) {
          clearInterval(check);
          reject(new Error(`${this.name} did not listen within ${this.spec.startTimeoutMs} ms; last lines:\n${this.lastLines()}`));
        }
      }, 20);
      child.once('error', (error) => {
        clearInterval(check);
        reject(new Error(`${this.name} could not be started: ${error.message}`));
      });
    });
  }
}

/** How many child servers started here have not ended yet. */
export function childServersRunning(): number {
  return running.size;
}

/** Stops every child server still running (SIGTERM, then SIGKILL); for a `finally`. */
export async function stopAllChildServers(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}

let ticksPerSecond: number | null = null;

/** The kernel's clock ticks per second (`getconf CLK_TCK`), the unit of `/proc/<pid>/stat` times; 100 when it cannot be asked (said on stderr). */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === null) {
    let value = 100;
    try {
      const answer = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
      if (Number.isInteger(answer) && answer > 0) value = answer;
    } catch (error) {
      process.stderr.write(`[http] getconf CLK_TCK failed (${error instanceof Error ? error.message : String(error)}); assuming 100 ticks/s\n`);
    }
    ticksPerSecond = value;
  }
  return ticksPerSecond;
}

/** User + system CPU time of a process, in ms (`/proc/<pid>/stat` fields 14 and 15); null when it cannot be read (not Linux, or the process is gone). */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // No /proc here (not Linux), or the process has ended: the caller then reports no CPU figure. Anything else is a fault.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ESRCH') return null;
    throw error;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count the fields after its closing one (field 3 first).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const userTicks = Number(fields[14 - 3]);
  const systemTicks = Number(fields[15 - 3]);
  if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) return null;
  return ((userTicks + systemTicks) * 1000) / clockTicksPerSecond();
}
