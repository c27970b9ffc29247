import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { installCrashPointHandler } from '@agent-ledger/crash-points';
import { ToolRegistry, ToolsModule } from '@agent-ledger/runtime';
import type { LedgerLine } from './test-ledger.tools';
import { LedgerAppendTool, TestLedgerModule, testLedgerImports } from './test-ledger.tools';

describe('the ledger test tools (AGENT_LEDGER_TEST_LEDGER)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-ledger-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const context = (stepId: string, attempt = 1) => ({
    runId: 'run-1',
    stepId,
    idempotencyKey: `agent-ledger:${stepId}`,
    attempt,
    signal: new AbortController().signal,
  });
  const lines = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as LedgerLine);

  it('are registered by the tools module, with their effects, only when the setting names a file', async () => {
    const path = join(dir, 'sub', 'ledger.jsonl');
    const app = await Test.createTestingModule({ imports: [ToolsModule.forRoot({ builtins: { clock: false, user: false } }), ...testLedgerImports(path)] }).compile();
    await app.init();
    try {
      const registry = app.get(ToolRegistry);
      expect(['ledger.read', 'ledger.put', 'ledger.append'].map((name) => [name, registry.get(name)?.effect])).toEqual([
        ['ledger.read', 'READ_ONLY'],
        ['ledger.put', 'IDEMPOTENT_WRITE'],
        ['ledger.append', 'NON_IDEMPOTENT_WRITE'],
      ]);
      await registry.get('ledger.put')?.tool.execute({ value: 'v' }, context('run-1/r0/t0'));
      await registry.get('ledger.read')?.tool.execute({}, context('run-1/r0/t1', 2));
      expect(lines(path)).toEqual([
        { tool: 'ledger.put', runId: 'run-1', stepId: 'run-1/r0/t0', idempotencyKey: 'agent-ledger:run-1/r0/t0', attempt: 1, pid: process.pid, at: expect.any(Number), value: 'v' },
        { tool: 'ledger.read', runId: 'run-1', stepId: 'run-1/r0/t1', idempotencyKey: 'agent-ledger:run-1/r0/t1', attempt: 2, pid: process.pid, at: expect.any(Number), value: null },
      ]);
    } finally {
      await app.close();
    }
    expect(testLedgerImports(null)).toEqual([]);
    expect(TestLedgerModule.forRoot(path).providers).toHaveLength(4);
  });

  it('write the line before the crash point duringToolCall, then hold, then return', async () => {
    const path = join(dir, 'ledger.jsonl');
    const seen: Array<[string, unknown, number]> = [];
    const remove = installCrashPointHandler((point, at) => {
      seen.push([point, at, lines(path).length]);
    });
    try {
      const started = Date.now();
      const result = await new LedgerAppendTool(path).execute({ value: 'x', holdMs: 50 }, context('run-1/r1/t0', 3));
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      expect(result).toEqual({ recorded: true, tool: 'ledger.append', attempt: 3, pid: process.pid });
    } finally {
      remove();
    }
    expect(seen).toEqual([['duringToolCall', { runId: 'run-1', stepId: 'run-1/r1/t0', effect: 'NON_IDEMPOTENT_WRITE' }, 1]]);
  });
});
