import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { entryArgs, serviceProcessEnv } from './entry-point';

/** An agents file with one scripted agent, `greeter`, that answers "hello" without a tool. */
export const GREETER_AGENTS_YAML = `agents:
  - name: greeter
    description: Says hello.
    instructions: Say hello.
    tools: []
    maxIterations: 2
    provider:
      type: scripted
      script:
        - final: hello
`;

/** A service process started by a test, with its output so far and its exit. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/**
 * Starts the service (`serve`) as a user does ({@link entryArgs}), from the
 * repository root, with {@link serviceProcessEnv} and then `env`; its stdout
 * and stderr are collected. The caller kills it.
 */
export function startServiceProcess(env: Record<string, string | undefined>): ServiceProcess {
  const child = spawn(process.execPath, [...entryArgs('service')], {
    cwd: join(__dirname, '..', '..', '..'),
    env: serviceProcessEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}
