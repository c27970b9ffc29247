import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { entryArgs } from './support/entry-point';
import { listeningPort } from './support/http-service';
import { scaled } from '../support/time-scale';

const root = join(__dirname, '..', '..');

/** Starts the service from its sources, as `npm start` would start the build. */
function startService(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...entryArgs('service')], {
    cwd: root,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: 'tsconfig.json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function waitForHealth(port: number, child: ChildProcess, output: () => string): Promise<unknown> {
  const deadline = Date.now() + scaled(60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The service exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.ok) return await response.json();
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The service did not answer in time:\n${output()}`);
}

describe('the service (e2e)', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-e2e-'));
  });

  afterEach(() => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts on the embedded store with the example agents, answers /health, and stops cleanly on SIGTERM', async () => {
    let output = '';
    // PORT=0: the system picks a free port, read back from the log line (a fixed or random port may be taken by another run).
    // A misspelled setting is ignored, and said at start with the setting it likely meant.
    child = startService({ PORT: '0', AGENT_LEDGER_DATA_DIR: dir, AGENT_LEDGER_DATADIR: join(dir, 'elsewhere') });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = child;
    const port = await listeningPort(started, () => output, new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code))), 'The service');
    expect(await waitForHealth(port, child, () => output)).toEqual({ status: 'ok' });
    expect(output).toContain('agents: file-clerk, time-teller, ticket-asker');
    expect(output).toContain('the environment variable AGENT_LEDGER_DATADIR is not a setting of agent-ledger and is ignored; did you mean AGENT_LEDGER_DATA_DIR?');
    // Its output is a pipe here, not a terminal: no colour codes.
    expect(output).not.toContain('\u001b[');
    expect(existsSync(join(dir, 'agent-ledger.sqlite'))).toBe(true);
    // The example agents read notes.txt: a fresh workspace is seeded with it, and the log says so.
    expect(readFileSync(join(dir, 'workspace', 'notes.txt'), 'utf8')).toMatch(/^These are the example notes of agent-ledger\./);
    expect(output).toContain(`Seeded the example workspace: wrote ${join(dir, 'workspace', 'notes.txt')} for the example agents`);
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM: shutting down');
    expect(output).toContain(`console: http://127.0.0.1:${port}/console/`);
  }, scaled(90_000));

  it('refuses a port in use with exit 3 and a message that names PORT', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      let output = '';
      child = startService({ PORT: String(port), AGENT_LEDGER_DATA_DIR: dir });
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child?.once('exit', (c) => resolve(c)));
      expect({ code, said: output.includes(`agent-ledger: cannot listen on 127.0.0.1:${port}: the port is in use by another process; set PORT`) }).toEqual({ code: 3, said: true });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, scaled(90_000));

  it('refuses to start with a bad setting, naming it', async () => {
    let output = '';
    child = startService({ PORT: 'eighty', AGENT_LEDGER_DATA_DIR: dir });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child?.once('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(output).toContain('PORT must be an integer');
  }, scaled(90_000));
});
