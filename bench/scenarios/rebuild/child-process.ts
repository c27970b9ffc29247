/**
 * Runs a (precompiled) entry file of the benchmark in a child process under
 * plain `node` and returns the one message it sends over IPC.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';

/** The repository's root. */
export const REPOSITORY_ROOT = join(__dirname, '..', '..', '..');

/** Options of {@link runChild}. */
export interface ChildOptions {
  /** The child's working folder. */
  readonly cwd: string;
  /** Extra Node flags, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/x']`. */
  readonly nodeFlags?: readonly string[];
  /** Killed (SIGKILL) after this long. @default 30 min */
  readonly timeoutMs?: number;
}

/**
 * Forks `node [nodeFlags] <entry> <argument>` and resolves with the message
 * the child sends. Rejects, with the tail of its stderr, when it exits
 * without one, exits non-zero, or times out.
 */
export function runChild<T>(entry: string, argument: string, options: ChildOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  return new Promise<T>((resolve, reject) => {
    const child = fork(entry, [argument], {
      cwd: options.cwd,
      // Not the parent's flags (ts-node's hooks): the child runs compiled JavaScript.
      execArgv: [...(options.nodeFlags ?? [])],
      env: withoutNodeOptions(process.env),
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

/** The environment without NODE_OPTIONS, which could preload ts-node into the child. */
function withoutNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy['NODE_OPTIONS'];
  return copy;
}
