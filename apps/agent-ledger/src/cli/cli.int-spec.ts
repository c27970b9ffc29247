import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startRuntime } from '@agent-ledger/runtime/testing/runtime-harness';
import type { CliOutput } from './cli-output';
import { runCli } from './main';

const AGENTS = [{ name: 'putter', script: [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'x' } }] }, { final: 'ok' }] }];

function capture(): CliOutput & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), isTTY: false };
}

describe('agent-ledger CLI', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-'));
    // The service keeps runs in <data>/agent-ledger.sqlite; this one keeps audits in a file of their own.
    env = { AGENT_LEDGER_DATA_DIR: dataDir, AUDIT_STORE_PATH: join(dataDir, 'audit.sqlite') };
    const rt = await startRuntime({ store: 'sqlite', storeDir: dataDir, agents: AGENTS });
    try {
      await rt.runs.runInteractive({ agent: 'putter', input: 'go', runId: 'run-a' });
      await rt.runs.runInteractive({ agent: 'putter', input: 'go', runId: 'run-b' });
    } finally {
      await rt.close();
    }
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('audit verify: exit 0 and a summary when every chain is intact', async () => {
    const output = capture();
    expect(await runCli(['audit', 'verify'], output, env)).toBe(0);
    expect(output.lines[0]).toBe('Audit chains: 2 runs, 6 records, 0 broken');
  });

  it('audit verify --json: exit 1 and the broken record when an audit record was edited', async () => {
    const db = new Database(join(dataDir, 'audit.sqlite'));
    db.prepare("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = 'audit-run-b' AND revision = 1").run();
    db.close();
    const output = capture();
    expect(await runCli(['audit', 'verify', '--json'], output, env)).toBe(1);
    const report = JSON.parse(output.lines.join('\n')) as { brokenRuns: string[]; breaks: { problem: string }[] };
    expect(report.brokenRuns).toEqual(['run-b']);
    expect(report.breaks.map((b) => b.problem)).toEqual(['hashMismatch']);
  });

  it('exits 2 on an unknown command or option, and 3 on a bad configuration', async () => {
    expect(await runCli(['audit', 'frobnicate'], capture(), env)).toBe(2);
    expect(await runCli(['audit', 'verify', '--colour'], capture(), env)).toBe(2);
    const output = capture();
    expect(await runCli(['audit', 'verify'], output, { ...env, PORT: 'eighty' })).toBe(3);
    expect(output.errors.join('\n')).toContain('PORT must be an integer');
  });
});
