import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { AUDIT_VERDICT_CHECKPOINT_FILE, AuditStoreReviewer } from '@agent-ledger/runtime';
import { startRuntime } from '@agent-ledger/runtime/testing';
import type { CliOutput } from './cli-output';
import { runCli } from './main';

const AGENTS = [{ name: 'putter', script: [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'x' } }] }, { final: 'ok' }] }];

function capture(): CliOutput & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), isTTY: false };
}

describe('agent-ledger audit review and audit verify: a full pass, never the service\'s checkpoint', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-verdict-'));
    env = { AGENT_LEDGER_DATA_DIR: dataDir, AUDIT_STORE_PATH: join(dataDir, 'audit.sqlite') };
    const rt = await startRuntime({ store: 'sqlite', storeDir: dataDir, agents: AGENTS });
    try {
      await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go', runId: 'run-a' });
    } finally {
      await rt.close();
    }
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The service's review on the stores of the data folder, from (and into) its checkpoint file beside the read models. */
  async function serviceReview(): Promise<{ findings: boolean; verification: { mode: string } }> {
    const runStore = SqliteEventStore.open({ path: join(dataDir, 'agent-ledger.sqlite') });
    const auditStore = SqliteEventStore.open({ path: join(dataDir, 'audit.sqlite') });
    const reviewer = new AuditStoreReviewer({ runStore, auditStore }, { checkpointPath: join(dataDir, AUDIT_VERDICT_CHECKPOINT_FILE) });
    try {
      return await reviewer.review();
    } finally {
      reviewer.close();
      await runStore.close();
      await auditStore.close();
    }
  }

  it('finds an edit that the checkpoint file does not show, and leaves the file as it was', async () => {
    expect(await serviceReview()).toMatchObject({ findings: false, verification: { mode: 'full' } });
    // An audit record behind the chain's head, edited: a review continuing from the checkpoint does not see it.
    const db = new Database(join(dataDir, 'audit.sqlite'));
    try {
      expect(db.prepare("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = 'audit-run-a' AND revision = 2").run().changes).toBe(1);
    } finally {
      db.close();
    }
    expect(await serviceReview()).toMatchObject({ findings: false, verification: { mode: 'incremental' } });

    const review = capture();
    expect(await runCli(['audit', 'review', '--json'], review, env)).toBe(1);
    const reviewed = JSON.parse(review.lines.join('\n')) as { verdict: { brokenRuns: string[]; verification: object } };
    expect(reviewed.verdict).toMatchObject({ brokenRuns: ['run-a'], verification: { mode: 'full', fullBecause: 'a full verification was asked', checkpoint: null } });

    const verify = capture();
    expect(await runCli(['audit', 'verify', '--json'], verify, env)).toBe(1);
    expect(JSON.parse(verify.lines.join('\n'))).toMatchObject({ brokenRuns: ['run-a'], verification: { mode: 'full', fullBecause: 'a full verification was asked' } });

    // The CLI neither read nor renewed the service's checkpoint.
    expect(await serviceReview()).toMatchObject({ findings: false, verification: { mode: 'incremental' } });
  });
});
