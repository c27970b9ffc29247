import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { UsageError } from './service-client';

/** `serve` options: `--port` and `--host` override `PORT` and `HOST`. */
export interface ServeOptions {
  readonly port: string | undefined;
  readonly host: string | undefined;
}

/**
 * The service's entry beside this CLI: `../main.js` in the build, `../main.ts`
 * when the CLI itself runs from its sources (ts-node).
 */
export function serviceEntry(cliFile: string = __filename): string {
  return join(cliFile, '..', '..', `main${extname(cliFile)}`);
}

/**
 * `agent-ledger serve`: the whole service (HTTP, workers, reaper, audit-gap
 * saga, projections) in the foreground, as `npm start` runs it.
 *
 * The service's bootstrap (`src/main.ts`) is not exported as a function, so
 * this verb runs it as a child process with the same Node.js options
 * (`process.execArgv`, so `-r ts-node/register` in development) and the same
 * environment, output passed through. The child has a process group of its
 * own, so Ctrl-C on a terminal reaches this process only, which sends the
 * service exactly one SIGTERM (on SIGINT or SIGTERM) and exits with 0 once it
 * has shut down cleanly, 3 otherwise.
 */
export async function serve(options: ServeOptions, env: NodeJS.ProcessEnv, output: CliOutput, stop: AbortSignal): Promise<ExitCode> {
  if (options.port !== undefined && (!/^\d+$/.test(options.port) || Number(options.port) > 65_535)) throw new UsageError(`--port must be an integer from 0 to 65535 (got "${options.port}")`);
  const entry = serviceEntry();
  if (!existsSync(entry)) {
    output.err(`The service's entry is missing: ${entry} (run npm run build)`);
    return ExitCode.FAILURE;
  }
  const childEnv: NodeJS.ProcessEnv = { ...env };
  if (options.port !== undefined) childEnv.PORT = options.port;
  if (options.host !== undefined) childEnv.HOST = options.host;
  const child = spawn(process.execPath, [...process.execArgv, entry], { env: childEnv, stdio: 'inherit', detached: true });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopped = false;
  const onStop = () => {
    stopped = true;
    child.kill('SIGTERM');
  };
  stop.addEventListener('abort', onStop, { once: true });
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    if (code === 0) return ExitCode.OK;
    output.err(`The service ${signal === null ? `exited with ${code}` : `was killed by ${signal}`}${stopped ? ' while shutting down' : ''}`);
    return ExitCode.FAILURE;
  } finally {
    stop.removeEventListener('abort', onStop);
    process.off('exit', killOnExit);
  }
}
