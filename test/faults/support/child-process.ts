import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { scaled } from '../../support/time-scale';

const ROOT = join(__dirname, '..', '..', '..');

/** A child process running a TypeScript script of this folder, with line-based stdout and a stdin to command it. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** Resolves with the first line printed from now on (or already printed after `fromLine`) matching `pattern`; rejects on exit or after `timeoutMs`. */
  waitForLine(pattern: RegExp, options?: { readonly timeoutMs?: number; readonly fromLine?: number }): Promise<string>;
  /** Resolves with the exit code (or signal). */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  stderr(): string;
  /** Kills it (SIGKILL) if it still runs, and waits for the exit. */
  kill(): Promise<void>;
}

/** Starts `support/<script>` through ts-node (transpile only) in a child process of its own. */
export function startChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    stdio: 'pipe',
  });
  const lines: string[] = [];
  let partial = '';
  let errors = '';
  let hasExited = false;
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const listener of [...listeners]) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.on('exit', (code, signal) => {
      hasExited = true;
      resolve(code ?? signal);
      for (const listener of [...listeners]) listener();
    });
  });
  return {
    process: child,
    pid: child.pid ?? -1,
    lines,
    exited,
    stderr: () => errors,
    send(line) {
      child.stdin.write(`${line}\n`);
    },
    waitForLine(pattern, options = {}) {
      const timeoutMs = scaled(options.timeoutMs ?? 20_000);
      const from = options.fromLine ?? 0;
      return new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const line = lines.slice(from).find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolve(line);
          } else if (hasExited) {
            cleanup();
            reject(new Error(`${script} exited before printing ${pattern}; stderr: ${errors}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${script} did not print ${pattern} within ${timeoutMs} ms; stderr: ${errors}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async kill() {
      if (!hasExited) child.kill('SIGKILL');
      await exited;
    },
  };
}
