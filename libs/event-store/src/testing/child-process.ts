import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { scaled } from '../../../../test/support/time-scale';

/** A running `sqlite-worker.ts` with line-based output. */
export interface Worker {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Resolves with the first line (from now or already seen) matching `pattern`, or rejects after `timeoutMs` / on exit. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or signal). */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  stderr(): string;
}

/** Starts `sqlite-worker.ts` through ts-node (transpile only) in a child process. */
export function startSqliteWorker(args: readonly string[]): Worker {
  return startWorkerScript(join(__dirname, 'sqlite-worker.ts'), args);
}

/** Starts a TypeScript script through ts-node (transpile only) in a child process. */
export function startWorkerScript(script: string, args: readonly string[]): Worker {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], {
    cwd: join(__dirname, '..', '..', '..', '..'),
    env: { ...process.env, TS_NODE_PROJECT: join(__dirname, '..', '..', '..', '..', 'tsconfig.json') },
    stdio: 'pipe',
  });
  const lines: string[] = [];
  let partial = '';
  let errors = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const l of [...listeners]) l();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal);
      for (const l of [...listeners]) l();
    });
  });
  let exitedFlag = false;
  void exited.then(() => (exitedFlag = true));

  return {
    child,
    lines,
    exited,
    stderr: () => errors,
    waitForLine(pattern, unscaledTimeoutMs = 20_000) {
      const timeoutMs = scaled(unscaledTimeoutMs);
      return new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const line = lines.find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolve(line);
          } else if (exitedFlag || child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`worker exited before printing ${pattern}; stderr: ${errors}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`worker did not print ${pattern} within ${timeoutMs} ms; stderr: ${errors}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}
