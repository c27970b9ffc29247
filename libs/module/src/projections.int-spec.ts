import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { RecordedEvent } from '@agent-ledger/event-store';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { eventually, startRuntime, stateOf } from '@agent-ledger/runtime/testing';
import { ProjectionsModule } from '@agent-ledger/projections';
import { CqrsModule, QueryBus } from '@nestjs/cqrs';
import { GetAuditReview, GetProjectionStatus, GetRun, GetRunSteps, ListRuns } from '@agent-ledger/projections';
import { MessageValidationError } from '@agent-ledger/validation';
import type { AuditReviewQuery } from '@agent-ledger/projections';
import { ProjectionRunnerPool } from '@agent-ledger/projections';
import { ProjectionQueries } from '@agent-ledger/projections';
import { ProjectionRebuilder } from '@agent-ledger/projections';
import type { RebuildProgress } from '@agent-ledger/projections';
import { ProjectionRunner } from '@agent-ledger/projections';
import type { ProjectionSource } from '@agent-ledger/projections';
import { PROJECTED_EVENTS_FILTER } from '@agent-ledger/projections';
import { ProjectionStore } from '@agent-ledger/projections';
import { TableSlot } from '@agent-ledger/projections';
import type { MixedWorkload } from './testing/mixed-workload';
import { runMixedWorkload, WORKLOAD_AGENTS } from './testing/mixed-workload';
import { scaled } from '../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

/** Waits until every projection's checkpoint is at its source's head. */
async function caughtUp(queries: ProjectionQueries): Promise<void> {
  await eventually(async () => ((await queries.projectionStatus()).every((s) => s.caughtUp === true) ? true : undefined), 10_000, 'the projections to catch up');
}

/** Every row of every projection table, without the checkpoints' wall-clock columns. */
function model(store: ProjectionStore): Record<string, unknown[]> {
  return store.dumpTables();
}

function checkpoints(store: ProjectionStore) {
  return store.checkpoints().map(({ projection, source, position, eventsApplied }) => ({ projection, source, position, eventsApplied }));
}

async function allEvents(source: ProjectionSource): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of source.store.readAll({ filter: PROJECTED_EVENTS_FILTER })) events.push(event);
  return events;
}

describe('projections of a real mixed workload (embedded stores, run and audit apart)', () => {
  let rt: RuntimeHarness;
  let dir: string;
  let store: ProjectionStore;
  let sources: ProjectionSource[];
  let runners: ProjectionRunner[];
  let queries: ProjectionQueries;
  let workload: MixedWorkload;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-projections-'));
    rt = await startRuntime({ agents: WORKLOAD_AGENTS, execution: { workers: { concurrency: 0 }, policy: { leaseSeconds: 10 }, auditGapSaga: { gracePeriodMs: 30_000 } } });
    sources = [
      { name: 'runs', store: rt.runStore },
      { name: 'audit', store: rt.auditStore },
    ];
    store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
    queries = new ProjectionQueries(store, sources);
    // The runners follow the stores while the workload runs: live, not after the fact.
    runners = sources.map((source) => new ProjectionRunner(store, source, { batchSize: 7 }));
    for (const runner of runners) await runner.start();
    workload = await runMixedWorkload(rt);
    await caughtUp(queries);
  });

  afterAll(async () => {
    for (const runner of runners ?? []) await runner.stop();
    store?.close();
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('run status', () => {
    it('has one row per run that agrees with the run folded by the domain', async () => {
      for (const runId of workload.all) {
        const state = stateOf(await rt.runEvents(runId));
        const row = queries.getRun(runId);
        expect(row).toMatchObject({
          runId,
          status: state.status,
          reason: state.settlement?.reason ?? null,
          deadLettered: state.settlement?.deadLettered ?? null,
          attempts: state.attempt,
          requeues: state.requeues,
          mode: state.mode,
          agent: state.agent,
          stepsTotal: state.steps.size,
          leaseOwner: null,
          currentStepId: null,
        });
      }
    });

    it('shows why each run ended', () => {
      const ended = Object.fromEntries(workload.all.map((id) => [id, [queries.getRun(id)?.status, queries.getRun(id)?.reason]]));
      expect(ended).toEqual({
        [workload.completed]: ['COMPLETED', 'COMPLETED'],
        [workload.failedClosed]: ['FAILED', 'AUDIT_PERSISTENCE_FAILED'],
        [workload.retriedAfterReap]: ['COMPLETED', 'COMPLETED'],
        [workload.reapedMidWrite]: ['FAILED', 'WRITE_INTERRUPTED'],
        [workload.cancelled]: ['CANCELLED', 'CANCELLED'],
        [workload.retriesExhausted]: ['FAILED', 'RETRIES_EXHAUSTED'],
        [workload.auditMissing]: ['FAILED', 'AUDIT_MISSING'],
      });
      expect(queries.getRun(workload.retriedAfterReap)).toMatchObject({ attempts: 2, requeues: 1, readOnlySteps: 1, idempotentWriteSteps: 1, llmSteps: 3 });
      expect(queries.getRun(workload.retriesExhausted)).toMatchObject({ attempts: 4, requeues: 3, failureClass: 'serverError', deadLettered: true });
      expect(queries.getRun(workload.reapedMidWrite)).toMatchObject({ inFlightStepId: `${workload.reapedMidWrite}/r0/t1`, nonIdempotentWriteSteps: 1 });
      expect(queries.getRun(workload.failedClosed)).toMatchObject({ auditGaps: 1, failureClass: 'unknown' });
      expect(queries.getRun(workload.cancelled)).toMatchObject({ cancelRequested: true, cancelRequestedBy: 'key:alice', stepsTotal: 0 });
      expect(queries.getRun('never-requested')).toBeNull();
    });

    it('lists runs newest first with filters and cursor pagination', () => {
      const all = queries.listRuns({ limit: 1000 }).runs;
      expect(all.map((r) => r.runId).sort()).toEqual([...workload.all].sort());
      const pages: string[] = [];
      let cursor: string | undefined;
      do {
        const page = queries.listRuns({ limit: 2, cursor });
        expect(page.runs.length).toBeLessThanOrEqual(2);
        pages.push(...page.runs.map((r) => r.runId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(pages).toEqual(all.map((r) => r.runId));
      for (let i = 1; i < all.length; i++) expect((all[i - 1]?.requestedAt ?? 0) >= (all[i]?.requestedAt ?? 0)).toBe(true);
      expect(queries.listRuns({ status: 'FAILED' }).runs.map((r) => r.reason).sort()).toEqual(['AUDIT_MISSING', 'AUDIT_PERSISTENCE_FAILED', 'RETRIES_EXHAUSTED', 'WRITE_INTERRUPTED']);
      expect(queries.listRuns({ reason: 'CANCELLED' }).runs.map((r) => r.runId)).toEqual([workload.cancelled]);
      expect(queries.listRuns({ agent: 'two-rounds' }).runs.map((r) => r.runId)).toEqual([workload.retriedAfterReap]);
      const first = all[all.length - 1]?.requestedAt ?? 0;
      expect(queries.listRuns({ until: first + 1 }).runs.map((r) => r.runId)).toContain(workload.completed);
      expect(queries.listRuns({ since: first + 1 }).runs.map((r) => r.runId)).not.toContain(workload.completed);
      expect(() => queries.listRuns({ cursor: 'not-a-cursor' })).toThrow(expect.objectContaining({ code: 'INVALID_QUERY', option: 'cursor' }));
    });
  });

  describe('steps', () => {
    it('has every step of every run with its effect, outcome and idempotency key, matching the domain', async () => {
      for (const runId of workload.all) {
        const state = stateOf(await rt.runEvents(runId));
        const rows = queries.getSteps(runId);
        expect(rows.map((r) => r.stepId).sort()).toEqual([...state.steps.keys()].sort());
        for (const row of rows) {
          const step = state.steps.get(row.stepId);
          expect(row).toMatchObject({ kind: step?.kind, effect: step?.effect, idempotencyKey: step?.idempotencyKey, starts: step?.starts, status: step?.status });
          if (step?.kind === 'tool' && step.status === 'completed') expect(row.outcome).toBe(step.outcome);
        }
      }
    });

    it('gives each step the audit state its audit stream and the saga say', async () => {
      for (const runId of workload.all) {
        const audited = new Set((await rt.auditEvents(runId)).map((e) => (e.data as { stepId: string }).stepId));
        for (const row of queries.getSteps(runId)) {
          expect([row.stepId, row.auditState]).toEqual([row.stepId, audited.has(row.stepId) ? 'recorded' : row.gapDetectedAt !== null ? 'missing' : 'pending']);
        }
      }
      const put = queries.getSteps(workload.retriedAfterReap).find((s) => s.toolName === 'test.put');
      expect(put).toMatchObject({ starts: 2, attempt: 2, outcome: 'succeeded', auditState: 'recorded', idempotencyKey: `agent-ledger:${workload.retriedAfterReap}/r1/t0` });
      expect(queries.getSteps(workload.failedClosed).find((s) => s.toolName === 'test.append')).toMatchObject({ auditState: 'missing', outcome: 'succeeded' });
      expect(queries.getSteps(workload.reapedMidWrite).find((s) => s.toolName === 'test.append')).toMatchObject({ status: 'started', outcome: null, auditState: 'pending' });
    });
  });

  describe('audit review', () => {
    it('reports every write, the writes without audit and why their runs failed, gaps, and writes in flight when reaped', () => {
      const review = queries.auditReview();
      const w = workload;
      expect(review.totals).toEqual({
        writes: 5, // completed put, failed-closed append, retried put, reaped append, audit-missing append
        writesExecuted: 4,
        writesAudited: 2,
        auditedLate: 0,
        writesWithoutAudit: 2,
        gapsDetected: 2,
        runsFailedClosed: 1,
        runsFailedAuditMissing: 1,
        runsWriteInterrupted: 1,
        interruptedWrites: 2,
        approvalsGranted: 0,
        approvalsDenied: 0,
        runsStarted: 7,
        runStartsStated: 7,
      });
      expect(review.writes.map((x) => x.runId).sort()).toEqual([w.auditMissing, w.completed, w.failedClosed, w.reapedMidWrite, w.retriedAfterReap].sort());
      expect(review.writesWithoutAudit.map((x) => [x.runId, x.effect, x.failedRunReason, x.gapRunAlreadySettled])).toEqual([
        [w.auditMissing, 'NON_IDEMPOTENT_WRITE', 'AUDIT_MISSING', false],
        [w.failedClosed, 'NON_IDEMPOTENT_WRITE', 'AUDIT_PERSISTENCE_FAILED', true],
      ]);
      expect(review.gaps.map((x) => x.runId)).toEqual([w.auditMissing, w.failedClosed]);
      expect(review.runsFailedClosed.map((r) => r.runId)).toEqual([w.failedClosed]);
      expect(review.runsFailedAuditMissing.map((r) => r.runId)).toEqual([w.auditMissing]);
      expect(review.writes.find((x) => x.runId === w.reapedMidWrite)).toMatchObject({ executedAt: null, failedRunReason: 'WRITE_INTERRUPTED' });
      expect(review.writes.find((x) => x.runId === w.completed)).toMatchObject({ audited: true, failedRunReason: null });
      expect(review.interruptedWrites.map((i) => [i.runId, i.eventType, i.cause, i.reason, i.effect])).toEqual([
        [w.retriedAfterReap, 'RunRequeued', 'leaseExpired', null, 'IDEMPOTENT_WRITE'],
        [w.reapedMidWrite, 'RunFailed', null, 'WRITE_INTERRUPTED', 'NON_IDEMPOTENT_WRITE'],
      ]);
      expect(queries.auditReview({ runId: w.failedClosed }).totals).toMatchObject({ writes: 1, runsFailedClosed: 1, interruptedWrites: 0 });
    });
  });

  describe('checkpoints and duplicates', () => {
    it('keeps one checkpoint per projection and source, at the head', async () => {
      const status = await queries.projectionStatus();
      expect(status.map((s) => `${s.projection}@${s.source}`).sort()).toEqual(
        ['approvals@audit', 'approvals@runs', 'auditReview@audit', 'auditReview@runs', 'runStatus@audit', 'runStatus@runs', 'steps@audit', 'steps@runs'].sort(),
      );
      expect(status.every((s) => s.caughtUp === true && s.rebuilding === false)).toBe(true);
      const runs = await allEvents(sources[0] as ProjectionSource);
      expect(store.checkpoint('runStatus', 'runs')).toMatchObject({ position: runs[runs.length - 1]?.position, eventsApplied: runs.length });
    });

    it('gives the same rows when every event is delivered again, twice in a row, into a copy', async () => {
      const copy = ProjectionStore.open({ path: join(dir, 'duplicates.sqlite') });
      try {
        for (const source of sources) {
          const events = await allEvents(source);
          // Each event twice in the same batch, then the whole history again after the checkpoint was lost.
          for (let i = 0; i < events.length; i += 5) {
            const slice = events.slice(i, i + 5).flatMap((e) => [e, e]);
            const previous = events[i - 1]?.position ?? null;
            expect(copy.applyBatch({ slot: TableSlot.LIVE, source: source.name, projections: copy.projections, events: slice, after: previous }).kind).toBe('applied');
          }
        }
        expect(copy.dumpTables()).toEqual(model(store));
        copy.database.exec('DELETE FROM projection_checkpoints');
        for (const source of sources) await new ProjectionRunner(copy, source).catchUp();
        expect(copy.dumpTables()).toEqual(model(store));
      } finally {
        copy.close();
      }
    });
  });

  describe('rebuild', () => {
    it('rebuilds every projection from the history into the same rows as the live ones, with progress records', async () => {
      const before = model(store);
      const checkpointsBefore = checkpoints(store);
      const progress: RebuildProgress[] = [];
      const result = await new ProjectionRebuilder(store, sources).rebuild({ batchSize: 10, progressIntervalMs: 0, onProgress: (p) => progress.push(p) });
      expect(model(store)).toEqual(before);
      expect(checkpoints(store)).toEqual(checkpointsBefore);
      const total = (await allEvents(sources[0] as ProjectionSource)).length + (await allEvents(sources[1] as ProjectionSource)).length;
      expect(result).toMatchObject({ projections: ['runStatus', 'steps', 'auditReview', 'approvals'], eventsDone: total });
      expect(progress[0]).toMatchObject({ phase: 'started', eventsDone: 0 });
      expect(progress.at(-1)).toMatchObject({ phase: 'swapped', eventsDone: total, fractionDone: 1, etaMs: 0 });
      const replaying = progress.filter((p) => p.phase === 'replaying');
      expect(replaying.length).toBeGreaterThan(3);
      expect(replaying.map((p) => p.eventsDone)).toEqual([...replaying.map((p) => p.eventsDone)].sort((a, b) => a - b));
      expect(replaying.every((p) => p.eventsPerSecond > 0 && p.fractionDone !== null && p.fractionDone <= 1)).toBe(true);
      expect(store.hasRebuildTables('runStatus')).toBe(false);
    });

    it('rebuilds one projection alone, and refuses an unknown one', async () => {
      const before = model(store);
      await new ProjectionRebuilder(store, sources).rebuild({ projections: ['auditReview'] });
      expect(model(store)).toEqual(before);
      await expect(new ProjectionRebuilder(store, sources).rebuild({ projections: ['nope' as never] })).rejects.toMatchObject({ code: 'UNKNOWN_PROJECTION' });
    });

    it('keeps answering from the live tables, fed by the live runners, until the swap; then the live runners go on from the rebuilt checkpoint', async () => {
      const before = model(store);
      const rebuild = new ProjectionRebuilder(store, sources).rebuildWithProgress({ projections: ['runStatus'], batchSize: 5, progressIntervalMs: 0 });
      let next = await rebuild.next();
      while (!next.done && next.value.phase !== 'replaying') next = await rebuild.next();
      // Mid-rebuild: the partial table exists, the live one answers in full.
      expect(store.hasRebuildTables('runStatus')).toBe(true);
      expect(store.dumpTables(store.definitions(['runStatus']), TableSlot.REBUILD)['runs']?.length).toBeLessThan(workload.all.length);
      expect(queries.listRuns({ limit: 100 }).runs).toHaveLength(workload.all.length);
      expect(model(store)).toEqual(before);
      // A run appended during the rebuild reaches the live tables at once...
      const late = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'late', runId: 'late-run' })).runId;
      await caughtUp(queries);
      expect(queries.getRun(late)).toMatchObject({ status: 'COMPLETED' });
      // ...and is still there after the swap, from the rebuild's catch-up or from the live runner.
      while (!next.done) next = await rebuild.next();
      expect(store.hasRebuildTables('runStatus')).toBe(false);
      await caughtUp(queries);
      expect(queries.getRun(late)).toMatchObject({ status: 'COMPLETED' });
      const live = model(store);
      await new ProjectionRebuilder(store, sources).rebuild();
      expect(model(store)).toEqual(live);
      await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'after', runId: 'after-swap' });
      await caughtUp(queries);
      expect(queries.getRun('after-swap')).toMatchObject({ status: 'COMPLETED', stepsTotal: 3 });
      expect(runners.every((r) => r.stats().failures === 0)).toBe(true);
    });

    it('drops the partial tables of an abandoned rebuild and leaves the live ones alone', async () => {
      const before = model(store);
      const controller = new AbortController();
      const rebuilder = new ProjectionRebuilder(store, sources);
      const running = rebuilder.rebuild({
        batchSize: 5,
        progressIntervalMs: 0,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.phase === 'replaying') controller.abort();
        },
      });
      await expect(running).rejects.toMatchObject({ code: 'REBUILD_ABORTED' });
      expect(store.hasRebuildTables('steps')).toBe(false);
      expect(model(store)).toEqual(before);
      expect(rebuilder.inProgress).toBeNull();
    });
  });

  describe('ProjectionsModule', () => {
    it('starts a runner per source at bootstrap and serves the queries and the rebuilder', async () => {
      const module = await Test.createTestingModule({
        imports: [ProjectionsModule.forRoot({ databasePath: join(dir, 'module.sqlite'), sources, runner: { batchSize: 50 } })],
      }).compile();
      const app = module.createNestApplication();
      await app.init();
      try {
        const moduleQueries = app.get(ProjectionQueries);
        await caughtUp(moduleQueries);
        expect(app.get(ProjectionRunnerPool).runners).toHaveLength(2);
        expect(moduleQueries.getRun(workload.failedClosed)).toMatchObject({ reason: 'AUDIT_PERSISTENCE_FAILED' });
        await app.get(ProjectionRebuilder).rebuild({ projections: ['steps'] });
        expect(moduleQueries.getSteps(workload.completed)).toEqual(queries.getSteps(workload.completed));
      } finally {
        await app.close();
      }
    });

    it('answers the read-model queries on the QueryBus', async () => {
      const module = await Test.createTestingModule({
        imports: [CqrsModule.forRoot(), ProjectionsModule.forRoot({ databasePath: join(dir, 'bus.sqlite'), sources, runner: { batchSize: 50 } })],
      }).compile();
      const app = module.createNestApplication();
      await app.init();
      try {
        const bus = app.get(QueryBus);
        await caughtUp(app.get(ProjectionQueries));
        expect(await bus.execute(new GetRun(workload.failedClosed))).toMatchObject({ reason: 'AUDIT_PERSISTENCE_FAILED' });
        expect(await bus.execute(new GetRun('no-such-run'))).toBeNull();
        expect(await bus.execute(new GetRunSteps(workload.completed))).toEqual(queries.getSteps(workload.completed));
        expect((await bus.execute(new ListRuns({ limit: 2 }))).runs).toHaveLength(2);
        // ProjectionsModule alone has no verdict to give: the read model's report only.
        expect(await bus.execute(new GetAuditReview())).toMatchObject({ totals: queries.auditReview().totals, verdict: null, findings: null });
        expect(await bus.execute(new GetProjectionStatus())).toHaveLength((await queries.projectionStatus()).length);
        await expect(bus.execute(new ListRuns({ limit: 0 }))).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'query.limit', rule: 'min' });
        await expect(bus.execute(new GetRun('../etc/passwd'))).rejects.toBeInstanceOf(MessageValidationError);
        await expect(bus.execute(new GetAuditReview({ runId: 'x', everything: true } as AuditReviewQuery))).rejects.toMatchObject({ field: 'query.everything', rule: 'unknownField' });
      } finally {
        await app.close();
      }
    });

    it('refuses bad options with the field named', () => {
      const databasePath = join(dir, 'refused.sqlite');
      expect(() => ProjectionsModule.forRoot({ databasePath, sources: [] })).toThrow(expect.objectContaining({ option: 'sources' }));
      expect(() => ProjectionsModule.forRoot({ databasePath, sources: [...sources, { name: 'runs', store: rt.runStore }] })).toThrow(expect.objectContaining({ option: 'sources[2].name' }));
      // No default file: a host's read models never land in the service's ./data/read-models.sqlite.
      expect(() => ProjectionsModule.forRoot({ sources } as never)).toThrow(expect.objectContaining({ option: 'databasePath' }));
    });
  });
});
