import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTerminalRunEvent } from '@agent-ledger/domain';
import { startRuntime } from '@agent-ledger/runtime/testing';
import { scaled } from '../support/time-scale';

const root = join(__dirname, '..', '..');

describe('the audit-gap saga across a process crash (e2e)', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-crash-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('fails the run of a process killed between ToolExecuted and AuditRecorded once the saga restarts', async () => {
    const storeDir = tempDir();
    const sagaDir = tempDir();
    const child = spawn(process.execPath, ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', 'test/e2e/support/audit-gap-child.ts'], {
      cwd: root,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', STORE_DIR: storeDir, SAGA_DIR: sagaDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ready = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = /READY (\S+) (\S+)/.exec(output);
        if (line !== null) resolve(line[0]);
      });
      child.once('exit', (code) => reject(new Error(`The child exited early (${code}):\n${output}`)));
    });
    const [, runId, stepId] = ready.split(' ') as [string, string, string];
    const killed = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await killed;

    // "Restart": a new runtime on the same files and the same saga ledger, later.
    const rt = await startRuntime({ store: 'sqlite', storeDir, sagaDir, agents: [], execution: { auditGapSaga: { gracePeriodMs: 30_000 } } });
    try {
      expect(rt.saga.pendingCount()).toBe(1);
      rt.clock.advance(31_000);
      expect((await rt.saga.checkDeadlines()).reported).toEqual([stepId]);
      const events = await rt.runEvents(runId);
      expect(events.filter(isTerminalRunEvent)).toEqual([
        expect.objectContaining({ type: 'RunFailed', data: expect.objectContaining({ reason: 'AUDIT_MISSING', deadLettered: true }) }),
      ]);
      // Only who started the run: the write's audit never came.
      expect((await rt.auditEvents(runId)).map((e) => e.type)).toEqual(['RunStartRecorded']);
    } finally {
      await rt.close();
    }
  }, scaled(120_000));
});
