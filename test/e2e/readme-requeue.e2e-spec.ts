/**
 * The requeue example of docs/operations.md (once the README's), run as
 * written: its fenced block under "Requeue a dead-lettered run" is read from
 * docs/operations.md, and each command line is run by bash, in order, in a
 * fresh folder (the example's repository folder),
 * `agent-ledger` being the package's built bin. The two `serve` lines run in
 * the background (terminal 1); the others one after the other (terminal 2),
 * the shell variables they set carried to the next line. Only the port is
 * the test's own (PORT=0, read from the log; AGENT_LEDGER_URL for terminal 2),
 * and the agents file is named (AGENTS_CONFIG: the example runs in the
 * repository's folder, where it is found by itself).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../support/time-scale';

// The reaper takes the run back 120 s after the write's fence (files.append's deadline and the margin): real time, not scaled.
jest.setTimeout(scaled(120_000) + 240_000);

const root = join(__dirname, '..', '..');
const BIN = join(root, 'apps', 'agent-ledger', 'bin', 'agent-ledger.js');
const BUILT = join(root, 'apps', 'agent-ledger', 'dist', 'cli', 'main.js');

/** Where the example is. */
const DOC = 'docs/operations.md';

/** The command lines of the Markdown's fenced block under `heading`: comments and blank lines dropped, a trailing `   # ...` comment cut. */
function readmeCommands(readme: string, heading: string): string[] {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${DOC} has no heading "${heading}"`);
  const fence = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (fence === null) throw new Error(`no sh block under "${heading}"`);
  return (fence[1] as string)
    .split('\n')
    .map((line) => line.replace(/\s{2,}#\s.*$/, '').trimEnd())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The shell variables after the line. */
  readonly vars: Record<string, string>;
}

const VARS = ['DEAD', 'CONT'];

describe("the requeue example of docs/operations.md, as written (e2e)", () => {
  let folder: string;
  let env: NodeJS.ProcessEnv;
  let vars: Record<string, string> = {};
  const services: ChildProcess[] = [];

  /** The lines that make `agent-ledger` the built bin and restore the variables of the lines before. */
  const prelude = () => [`agent-ledger() { ${JSON.stringify(BIN)} "$@"; }`, ...Object.entries(vars).map(([name, value]) => `${name}=${JSON.stringify(value)}`)].join('\n');

  /** Runs one line of terminal 2 to its end; keeps the variables it set. */
  const line = (command: string): Promise<Result> =>
    new Promise((resolve, reject) => {
      const script = `${prelude()}\n${command}\nstatus=$?\n${VARS.map((v) => `printf '\\n__VAR ${v}=%s' "$${v}"`).join('\n')}\nexit $status`;
      const child = spawn('bash', ['-c', script], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => {
        const set: Record<string, string> = {};
        for (const match of stdout.matchAll(/\n__VAR (\w+)=(.*)/g)) if (match[2] !== '') set[match[1] as string] = match[2] as string;
        vars = { ...vars, ...set };
        resolve({ code, stdout: stdout.replace(/\n__VAR [\s\S]*$/, ''), stderr, vars: set });
      });
    });

  /** Starts a `serve` line of terminal 1 in the background; resolves with the process, its output and its URL once it listens. */
  const serve = async (command: string): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> => {
    // `VAR=value exec <bin> serve`: the line as written, the shell replaced by the service's process (so that the test can stop it).
    const child = spawn('bash', ['-c', `${prelude()}\n${command.replace(/agent-ledger serve$/, `exec ${JSON.stringify(BIN)} serve`)}`], { cwd: folder, env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    services.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const port = await new Promise<number>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`"${command}" did not start:\n${output}`)), scaled(60_000));
      const look = () => {
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match !== null) {
          clearTimeout(deadline);
          resolve(Number(match[1]));
        }
      };
      child.stdout?.on('data', look);
      void exited.then((code) => {
        clearTimeout(deadline);
        reject(new Error(`"${command}" exited with ${code}:\n${output}`));
      });
    });
    env = { ...env, AGENT_LEDGER_URL: `http://127.0.0.1:${port}` };
    return { child, output: () => output, exited };
  };

  beforeAll(() => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build first (this test runs the built CLI)`);
    folder = mkdtempSync(join(tmpdir(), 'agent-ledger-readme-'));
    const { AGENT_LEDGER_URL: _url, AGENT_LEDGER_DATA_DIR: _data, EVENT_STORE_PATH: _store, PORT: _port, ...rest } = process.env;
    env = { ...rest, EVENTSTORE_CONNECTION_STRING: '', AGENTS_CONFIG: join(root, 'config', 'agents.example.yaml') };
  });

  afterAll(async () => {
    for (const child of services) {
      if (child.exitCode === null && child.signalCode === null) {
        const exit = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exit;
      }
    }
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  it('dead-letters a run with its append in flight, then requeues it with --write-not-executed: every line works as written', async () => {
    const commands = readmeCommands(readFileSync(join(root, DOC), 'utf8'), '### Requeue a dead-lettered run');
    expect(commands).toEqual([
      'AGENT_LEDGER_DATA_DIR=./data-requeue AGENT_LEDGER_CRASH_POINTS=afterWriteFence@2 LEASE_SECONDS=10 WORKER_PROCESSES=0 agent-ledger serve',
      "DEAD=$(agent-ledger runs start --agent file-clerk --input 'Write the report' -q)",
      'agent-ledger events follow $DEAD --until ApprovalRequested',
      'agent-ledger runs approve $DEAD',
      'AGENT_LEDGER_DATA_DIR=./data-requeue REAPER_INTERVAL_MS=5000 agent-ledger serve',
      'agent-ledger events follow $DEAD',
      'agent-ledger runs get $DEAD',
      'cat data-requeue/workspace/clerk.log',
      "CONT=$(agent-ledger runs requeue $DEAD --write-not-executed 'no line in the target log' -q)",
      'agent-ledger events follow $CONT --until ApprovalRequested',
      'agent-ledger runs approve $CONT',
      'agent-ledger events follow $CONT',
      'cat data-requeue/workspace/clerk.log',
    ]);
    const [crashing, start, waits, approve, again, follow, get, cat, requeue, contWaits, contApprove, contFollow, contCat] = commands as [
      string, string, string, string, string, string, string, string, string, string, string, string, string,
    ];

    // Terminal 1: the service in crash-test mode.
    const first = await serve(crashing);
    // Terminal 2: a queued run, followed until it waits for the approval of its append.
    const started = await line(start);
    expect(started.code).toBe(0);
    expect(started.vars.DEAD).toMatch(/^[0-9a-f-]{36}$/);
    const dead = started.vars.DEAD as string;
    const waiting = await line(waits);
    expect(waiting.code).toBe(0);
    expect(waiting.stdout.trimEnd().split('\n').at(-1)).toMatch(/ ApprovalRequested round=2 calls=files\.append\(NON_IDEMPOTENT_WRITE\)/);
    const approved = await line(approve);
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`Run ${dead} approved: status QUEUED.`);
    // Terminal 1's service dies at the append's fence.
    await first.exited;
    expect(first.output()).toMatch(new RegExp(`agent-ledger crash point: point=afterWriteFence reached=2 .*runId=${dead} stepId=${dead}/r2/t0 effect=NON_IDEMPOTENT_WRITE: SIGKILL`));

    // Terminal 1 again; terminal 2 follows the run until the reaper fails it.
    await serve(again);
    const followed = await line(follow);
    expect(followed.code).toBe(1);
    expect(followed.stdout).toMatch(/RunFailed reason=WRITE_INTERRUPTED deadLettered=true/);
    const got = await line(get);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/^status\s+FAILED$/m);
    expect(got.stdout).toMatch(/^reason\s+WRITE_INTERRUPTED$/m);
    expect(got.stdout).toMatch(new RegExp(`^write in flight\\s+${dead}/r2/t0$`, 'm'));
    // No line: in this example's data folder, no clerk.log at all.
    const catted = await line(cat);
    expect(catted.code).toBe(1);
    expect(catted.stderr).toContain('data-requeue/workspace/clerk.log: No such file or directory');

    const requeued = await line(requeue);
    expect({ code: requeued.code, stderr: requeued.stderr }).toEqual({ code: 0, stderr: '' });
    const continuation = requeued.vars.CONT as string;
    expect(continuation).toMatch(/^[0-9a-f-]{36}$/);
    expect(continuation).not.toBe(dead);

    // The continuation asks again for the append (it never happened), is approved, and completes: the line, once.
    const asks = await line(contWaits);
    expect(asks.code).toBe(0);
    expect(asks.stdout.trimEnd().split('\n').at(-1)).toMatch(/ ApprovalRequested round=2 calls=files\.append\(NON_IDEMPOTENT_WRITE\)/);
    const approvedAgain = await line(contApprove);
    expect({ code: approvedAgain.code, stderr: approvedAgain.stderr }).toEqual({ code: 0, stderr: '' });
    const completed = await line(contFollow);
    expect(completed.code).toBe(0);
    expect(completed.stdout).toMatch(/ ToolExecuted step=r2\/t0 tool=files\.append outcome=succeeded/);
    expect(completed.stdout).toMatch(/ RunCompleted answer=/);
    const logged = await line(contCat);
    expect(logged).toMatchObject({ code: 0, stdout: 'report.txt written\n' });
  });
});
