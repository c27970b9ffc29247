/**
 * Test support for the CLI's end-to-end tests: `agent-ledger` run from its
 * sources (ts-node, transpile only) as a child process, either to completion
 * (`runCliProcess`) or kept running (`startCliProcess`, for `serve`,
 * `worker` and `events follow`).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { entryArgs, TS_PROJECT } from './entry-point';
import { scaled } from '../../support/time-scale';

const root = join(__dirname, '..', '..', '..');

/** What a finished CLI process left. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A CLI process still running. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout matches `pattern` (rejects if the process exits first or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code. */
  exited(): Promise<CliResult>;
  /** Sends `signal` and waits for the exit (SIGKILL after 15 s). */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/** Starts `agent-ledger <args>` with `env` on top of this process's environment, in `cwd` (default: the repository). */
export function startCliProcess(args: readonly string[], env: Readonly<Record<string, string>> = {}, cwd: string = root): CliProcess {
  const child = spawn(process.execPath, [...entryArgs('cli'), ...args], {
    cwd,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: TS_PROJECT, EVENTSTORE_CONNECTION_STRING: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => finish(new Error(`Timed out waiting for ${pattern}:\n${stdout}\n${stderr}`)), scaled(timeoutMs));
        const look = () => {
          const match = pattern.exec(stdout);
          if (match) finish(undefined, match);
        };
        function finish(error?: Error, match?: RegExpExecArray) {
          clearTimeout(deadline);
          child.stdout?.off('data', look);
          if (error) reject(error);
          else resolve(match as RegExpExecArray);
        }
        child.stdout?.on('data', look);
        void exit.then((r) => finish(new Error(`The CLI exited with ${r.code} before printing ${pattern}:\n${r.stdout}\n${r.stderr}`)));
        look();
      });
    },
    exited: () => exit,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const result = await exit;
      clearTimeout(killer);
      return result;
    },
  };
}

/** Runs `agent-ledger <args>` to its end, in `cwd` (default: the repository). */
export function runCliProcess(args: readonly string[], env: Readonly<Record<string, string>> = {}, cwd: string = root): Promise<CliResult> {
  return startCliProcess(args, env, cwd).exited();
}

/** The types of the events `events follow` printed (`<position> <type> ...` lines). */
export function printedTypes(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => /^\d+:\d+ /.test(line))
    .map((line) => line.split(' ')[1] as string);
}
