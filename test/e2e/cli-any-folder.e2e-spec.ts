/**
 * The built CLI as a newcomer runs it: the package's `bin`
 * (`apps/agent-ledger/bin/agent-ledger.js`, a checked-in launcher of the built
 * `dist/cli/main.js`) executed directly and through a symbolic link on `PATH`
 * (what `node_modules/.bin/agent-ledger` and a link in `~/bin` are), from a
 * temporary folder outside the repository. It works there, against a
 * running service; every error is printed on standard error with a non-zero
 * exit code, none is hidden.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { HttpService } from './support/http-service';
import { startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

const root = join(__dirname, '..', '..');
const PACKAGE = join(root, 'apps', 'agent-ledger');
const BIN = join(PACKAGE, 'bin', 'agent-ledger.js');
const BUILT = join(PACKAGE, 'dist', 'cli', 'main.js');

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command args` in `cwd` with `env` (no shell, no ts-node: the built file as the system runs it). */
function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function expectExit(result: Result, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the built agent-ledger CLI from any folder (e2e)', () => {
  let service: HttpService;
  let elsewhere: string;
  /** The environment of a shell outside the repository: no setting of the service, the link's folder first on PATH. */
  let shell: NodeJS.ProcessEnv;

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build first (this test runs the built CLI)`);
    service = await startHttpService({ agentsYaml: testAgentsYaml('http://127.0.0.1:9') });
    elsewhere = mkdtempSync(join(tmpdir(), 'agent-ledger-elsewhere-'));
    const binDir = join(elsewhere, 'bin');
    mkdirSync(binDir);
    symlinkSync(BIN, join(binDir, 'agent-ledger'));
    const { PATH, HOME, TMPDIR } = process.env;
    shell = { PATH: [binDir, PATH ?? ''].join(delimiter), HOME: HOME ?? elsewhere, ...(TMPDIR === undefined ? {} : { TMPDIR }) };
  });

  afterAll(async () => {
    await service?.stop();
    if (elsewhere !== undefined) rmSync(elsewhere, { recursive: true, force: true });
  });

  it("the package's bin is the checked-in launcher, executable (npm links it into node_modules/.bin at install, before any build)", () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
    expect(manifest.bin).toEqual({ 'agent-ledger': 'bin/agent-ledger.js' });
    expect(manifest.files).toContain('bin');
    expect(statSync(BIN).mode & 0o111).toBe(0o111);
  });

  it('the launcher without a build says so: exit 3 naming the missing file and npm run build', async () => {
    const unbuilt = join(elsewhere, 'unbuilt');
    mkdirSync(join(unbuilt, 'bin'), { recursive: true });
    copyFileSync(BIN, join(unbuilt, 'bin', 'agent-ledger.js'));
    const result = await run(process.execPath, [join(unbuilt, 'bin', 'agent-ledger.js'), '--help'], elsewhere, shell);
    expectExit(result, 3);
    expect(result.stderr).toBe(`agent-ledger: the CLI is not built (${join(unbuilt, 'dist', 'cli', 'main.js')} is missing): run npm run build in the repository\n`);
  });

  it('--help works through a link on PATH, from a folder outside the repository, and by the file itself', async () => {
    const viaPath = await run('agent-ledger', ['--help'], elsewhere, shell);
    expectExit(viaPath, 0);
    expect(viaPath.stdout).toMatch(/^Usage: agent-ledger <command>/);
    expect(viaPath.stdout).toContain('approvals list');
    const direct = await run(BIN, ['runs', 'requeue', '--help'], elsewhere, shell);
    expectExit(direct, 0);
    expect(direct.stdout).toContain('Usage: agent-ledger runs requeue <runId>');
  });

  it('agents list and runs list reach the service (AGENT_LEDGER_URL) from a folder outside the repository', async () => {
    const env = { ...shell, AGENT_LEDGER_URL: service.baseUrl };
    const agents = await run('agent-ledger', ['agents', 'list'], elsewhere, env);
    expectExit(agents, 0);
    expect(agents.stdout).toMatch(/^writer\s+files\.append\s+NON_IDEMPOTENT_WRITE\s+code\s+pre-approved/m);
    expect(agents.stderr).toBe('');
    const started = await run('agent-ledger', ['runs', 'start', '--agent', 'clock', '--input', 'now?', '--mode', 'interactive'], elsewhere, env);
    expectExit(started, 0);
    const runs = await run('agent-ledger', ['runs', 'list', '--agent', 'clock'], elsewhere, env);
    expectExit(runs, 0);
    expect(runs.stdout).toMatch(/^\S+\s+clock\s+interactive\s+COMPLETED/m);
  });

  it('an unreachable service is exit 3 with the URL and the cause on standard error', async () => {
    const port = await closedPort();
    const result = await run('agent-ledger', ['runs', 'list'], elsewhere, { ...shell, AGENT_LEDGER_URL: `http://127.0.0.1:${port}` });
    expectExit(result, 3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`agent-ledger runs list failed: cannot reach the service at http://127.0.0.1:${port}: `);
    expect(result.stderr).toContain('ECONNREFUSED');
  });

  it('a bad flag is exit 2 naming it, with the verb\'s usage, on standard error', async () => {
    const result = await run('agent-ledger', ['runs', 'list', '--colour'], elsewhere, { ...shell, AGENT_LEDGER_URL: service.baseUrl });
    expectExit(result, 2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("Unknown option '--colour'");
    expect(result.stderr).toContain('Usage: agent-ledger runs list');
  });

  it('a verb that reads the stores, in a folder without them, is exit 3 naming the file and the settings, and creates nothing', async () => {
    const empty = mkdtempSync(join(elsewhere, 'empty-'));
    for (const verb of [['audit', 'verify'], ['audit', 'review'], ['projections', 'rebuild']]) {
      const result = await run('agent-ledger', verb, empty, shell);
      expectExit(result, 3);
      expect(result.stderr).toContain(`agent-ledger ${verb.join(' ')} failed: no event store at ${join(empty, 'data', 'agent-ledger.sqlite')}`);
      expect(result.stderr).toContain(`the default data folder ./data of the current folder ${empty}`);
      expect(result.stderr).toContain('AGENT_LEDGER_DATA_DIR');
    }
    expect(readdirSync(empty)).toEqual([]);
    // With the service's data folder named, the same command works from here.
    const verified = await run('agent-ledger', ['audit', 'verify'], empty, { ...shell, AGENT_LEDGER_DATA_DIR: service.dataDir });
    expectExit(verified, 0);
    expect(verified.stdout).toMatch(new RegExp(`^Stores read: embedded SQLite ${join(service.dataDir, 'agent-ledger.sqlite')} \\(store [0-9a-f-]{36}\\)`));
    expect(verified.stdout).toMatch(/^Audit chains: \d+ runs/m);
  });
});
