/**
 * Runs a TypeScript entry file of the benchmark in a child process (ts-node,
 * transpile only, with the repository's path aliases), from the repository's
 * root, and returns the one message it sends over IPC.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';

/** The repository's root: the children run from there (tsconfig.json, node_modules). */
export const REPOSITORY_ROOT = join(__dirname, '..', '..', '..');

/** Options of {@link runTsChild}. */
export interface TsChildOptions {
  /** Extra Node flags, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/x']`. */
  readonly nodeFlags?: readonly string[];
  /** Killed (SIGKILL) after this long. @default 30 min */
  readonly timeoutMs?: number;
}

/**
 * Forks `node -r ts-node/register/transpile-only -r tsconfig-paths/register <entry> <argument>`
 * and resolves with the message the child sends. Rejects, with the tail of
 * its stderr, when it exits without one, exits non-zero, or times out.
 */
export function runTsChild<T>(entry: string, argument: string, options: TsChildOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  return new Promise<T>((resolve, reject) => {
    const child = fork(entry, [argument], {
      cwd: REPOSITORY_ROOT,
      execArgv: [...(options.nodeFlags ?? []), '-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'],
      env: { ...process.env, TS_NODE_PROJECT: join(REPOSITORY_ROOT, 'tsconfig.json'), TS_NODE_TRANSPILE_ONLY: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    let message: { value: T } | null = null;
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8_000);
    });
    child.on('message', (value) => {
      message = { value: value as T };
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && message !== null) resolve(message.value);
      else reject(new Error(`${entry} exited with ${signal ?? `code ${String(code)}`}${message === null ? ' without a result' : ''}; stderr:\n${stderr.trim()}`));
    });
  });
}
