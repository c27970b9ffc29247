import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeExecutedWithoutAudit } from '@agent-ledger/runtime/testing';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { startRuntime } from '@agent-ledger/runtime/testing';
import { ProjectionQueries } from '@agent-ledger/projections';
import { ProjectionRunner } from '@agent-ledger/projections';
import type { ProjectionSource } from '@agent-ledger/projections';
import { ProjectionStore } from '@agent-ledger/projections';

describe('the audit review counts a write audited late (embedded stores)', () => {
  let dir: string;
  let rt: RuntimeHarness;
  let store: ProjectionStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-audited-late-'));
    rt = await startRuntime({
      agents: [{ name: 'putter', script: [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'x' } }] }, { final: 'ok' }] }],
      execution: { workers: { concurrency: 0 } },
    });
    store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
  });

  afterEach(async () => {
    store.close();
    await rt.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the write whose AuditRecorded came from the attempt that resumed the run, not the one that executed it', async () => {
    // The executing segment dies between ToolExecuted and AuditRecorded; the run is reaped and the next attempt stores the audit.
    const { runId, stepId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: { name: 'test.put', effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } });
    rt.clock.advance(3600_000);
    expect((await rt.reaper.reapOnce()).requeued).toEqual([runId]);
    expect(await rt.workers.runOnce()).toBe(runId);

    const sources: ProjectionSource[] = [
      { name: 'runs', store: rt.runStore },
      { name: 'audit', store: rt.auditStore },
    ];
    for (const source of sources) await new ProjectionRunner(store, source).catchUp();
    const review = new ProjectionQueries(store, sources).auditReview();
    expect(review.totals).toMatchObject({ writesExecuted: 1, writesAudited: 1, auditedLate: 1, writesWithoutAudit: 0 });
    expect(review.auditedLate).toEqual([expect.objectContaining({ runId, stepId, executedAttempt: 1, auditAttempt: 2, audited: true })]);
    expect(review.writes).toEqual([expect.objectContaining({ stepId, executedAttempt: 1, auditAttempt: 2 })]);
  });
});
