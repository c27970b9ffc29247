/**
 * The crash test settings on real processes: refused in production and when
 * malformed (start-up stops, exit 3, naming the variable), before anything
 * is opened.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryArgs } from '../e2e/support/entry-point';
import { scaled } from '../support/time-scale';

const root = join(__dirname, '..', '..');

function run(program: 'service' | 'cli', args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...entryArgs(program), ...args], {
    cwd: root,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: 'tsconfig.json', EVENTSTORE_CONNECTION_STRING: '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    }),
  );
}

describe('the crash test settings on the service and the worker (e2e)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-crash-setting-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are refused when NODE_ENV is production, and when malformed: exit 3 naming the setting', async () => {
    const data = { AGENT_LEDGER_DATA_DIR: join(dir, 'data') };
    const [serveProd, workerProd, serveLedgerProd, workerBad] = await Promise.all([
      run('service', [], { ...data, NODE_ENV: 'production', AGENT_LEDGER_CRASH_POINTS: 'beforeAudit@1' }),
      run('cli', ['worker'], { ...data, NODE_ENV: 'production', AGENT_LEDGER_CRASH_POINTS: 'beforeAudit@1' }),
      run('service', [], { ...data, NODE_ENV: 'production', AGENT_LEDGER_TEST_LEDGER: join(dir, 'ledger.jsonl') }),
      run('cli', ['worker'], { ...data, AGENT_LEDGER_CRASH_POINTS: 'afterLunch@1' }),
    ]);
    expect([serveProd.code, workerProd.code, serveLedgerProd.code, workerBad.code]).toEqual([3, 3, 3, 3]);
    expect(serveProd.output).toContain('agent-ledger: invalid configuration: AGENT_LEDGER_CRASH_POINTS is a test setting and is refused when NODE_ENV is production');
    expect(workerProd.output).toContain('AGENT_LEDGER_CRASH_POINTS is a test setting and is refused when NODE_ENV is production');
    expect(serveLedgerProd.output).toContain('AGENT_LEDGER_TEST_LEDGER is a test setting and is refused when NODE_ENV is production');
    expect(workerBad.output).toContain('AGENT_LEDGER_CRASH_POINTS names an unknown crash point "afterLunch"');
    // Nothing was started: no store was opened.
    for (const result of [serveProd, workerProd, serveLedgerProd, workerBad]) expect(result.output).not.toMatch(/listening on|worker started/);
  }, scaled(120_000));
});
