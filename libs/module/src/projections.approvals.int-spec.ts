import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { CqrsModule, QueryBus } from '@nestjs/cqrs';
import type { ApprovalRequested, RunEvent } from '@agent-ledger/domain';
import { apiKeyPrincipal, isTerminalRunEvent } from '@agent-ledger/domain';
import type { RuntimeHarness, TestAgent } from '@agent-ledger/runtime/testing';
import { eventually, startRuntime, stateOf } from '@agent-ledger/runtime/testing';
import { ListApprovals, ListRuns } from '@agent-ledger/projections';
import { ProjectionsModule } from '@agent-ledger/projections';
import type { ListApprovalsQuery } from '@agent-ledger/projections';
import { ProjectionQueries } from '@agent-ledger/projections';
import { ProjectionRebuilder } from '@agent-ledger/projections';
import { ProjectionRunner } from '@agent-ledger/projections';
import type { ProjectionSource } from '@agent-ledger/projections';
import { ProjectionStore } from '@agent-ledger/projections';
import { scaled } from '../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

const SECOND = 1000;
const readThenAppend = [{ toolCalls: [{ tool: 'test.read', arguments: { value: 'a' } }, { tool: 'test.append', arguments: { value: 'b' } }] }, { final: 'done' }];

const AGENTS: readonly TestAgent[] = [
  // Nothing pre-approved: the append waits for a person; a denial ends the run.
  { name: 'careful', script: readThenAppend, approvals: { preApproved: [] } },
  // The same, but a denial is shown to the model, which then answers.
  { name: 'told', script: readThenAppend, approvals: { preApproved: [], onDenial: 'tellModel' } },
  // The operator pre-approves the append.
  { name: 'trusted', script: readThenAppend, approvals: { preApproved: ['test.append'] } },
  // Asks the user, then writes what it was told (pre-approved).
  { name: 'asker', script: [{ toolCalls: [{ tool: 'test.ask', arguments: { value: 'Which ticket?' } }] }, { toolCalls: [{ tool: 'test.put', arguments: { value: 'p' } }] }, { final: 'done' }], tools: ['test.ask', 'test.put'] },
];

/** The runs of the approval workload, by what happened to them. */
interface ApprovalWorkload {
  /** Waits for approval (left waiting). */
  readonly waiting: string;
  /** Approved by alice, then completed. */
  readonly approved: string;
  /** Denied by bob with `endRun`: FAILED APPROVAL_DENIED. */
  readonly denied: string;
  /** Cancelled by carol while it waited for approval. */
  readonly cancelled: string;
  /** Denied by bob with `tellModel`: the model is told, the run completes. */
  readonly toldModel: string;
  /** Asked for input, got it from dave, completed. */
  readonly input: string;
  /** Waits for input (left waiting). */
  readonly waitingForInput: string;
  /** Its write pre-approved by the agent's configuration, completed without waiting. */
  readonly preApproved: string;
  readonly all: readonly string[];
}

describe.each(['sqlite', 'eventstoredb'] as const)('projections of runs that wait for a person, on %s', (storeKind) => {
  let rt: RuntimeHarness;
  let dir: string;
  let store: ProjectionStore;
  let sources: ProjectionSource[];
  let runners: ProjectionRunner[];
  let queries: ProjectionQueries;
  let w: ApprovalWorkload;

  const statusOf = async (runId: string) => stateOf(await rt.runEvents(runId)).status;
  const waitFor = (runId: string, status: string) =>
    eventually(async () => ((await statusOf(runId)) === status ? true : undefined), 10_000, `run ${runId} to be ${status}`);
  const settled = (runId: string) =>
    eventually(async () => ((await rt.runEvents(runId)).some(isTerminalRunEvent) ? true : undefined), 10_000, `run ${runId} to settle`);
  const caughtUp = (q: ProjectionQueries = queries) =>
    eventually(async () => ((await q.projectionStatus()).every((s) => s.caughtUp === true) ? true : undefined), 10_000, 'the projections to catch up');

  async function runWorkload(): Promise<ApprovalWorkload> {
    // The harness's clock is manual: each run starts a second after the one before, so that they sort by time.
    const enqueue = (agent: string) => {
      rt.clock.advance(SECOND);
      return rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent, input: 'go' });
    };
    const waitingForApproval = async (agent: string) => {
      const runId = await enqueue(agent);
      await waitFor(runId, 'WAITING_FOR_APPROVAL');
      return runId;
    };
    const waiting = await waitingForApproval('careful');

    const approved = await waitingForApproval('careful');
    // The read model sees the wait before the decision.
    await caughtUp();
    expect(queries.getRun(approved)).toMatchObject({ status: 'WAITING_FOR_APPROVAL', approvalRound: 0, leaseOwner: null });
    expect(queries.listApprovals({ runId: approved }).approvals).toEqual([expect.objectContaining({ state: 'pending' })]);
    await rt.runs.decideApproval(approved, { decision: 'approve', decidedBy: apiKeyPrincipal('alice'), reason: 'looks right' });
    await settled(approved);

    const denied = await waitingForApproval('careful');
    await rt.runs.decideApproval(denied, { decision: 'deny', decidedBy: apiKeyPrincipal('bob'), reason: 'not today' });
    await settled(denied);

    const cancelled = await waitingForApproval('careful');
    await rt.runs.cancel(cancelled, apiKeyPrincipal('carol'), 'changed my mind');

    const toldModel = await waitingForApproval('told');
    await rt.runs.decideApproval(toldModel, { decision: 'deny', decidedBy: apiKeyPrincipal('bob') });
    await settled(toldModel);

    const input = await enqueue('asker');
    await waitFor(input, 'WAITING_FOR_INPUT');
    await caughtUp();
    expect(queries.getRun(input)).toMatchObject({ status: 'WAITING_FOR_INPUT', inputStepId: `${input}/r0/t0`, approvalRound: null, leaseOwner: null });
    await rt.runs.submitInput(input, { input: { ticket: 'T-7' }, submittedBy: apiKeyPrincipal('dave') });
    await settled(input);

    const waitingForInput = await enqueue('asker');
    await waitFor(waitingForInput, 'WAITING_FOR_INPUT');

    const preApproved = await enqueue('trusted');
    await settled(preApproved);

    const all = [waiting, approved, denied, cancelled, toldModel, input, waitingForInput, preApproved];
    return { waiting, approved, denied, cancelled, toldModel, input, waitingForInput, preApproved, all };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-projections-approvals-'));
    rt = await startRuntime({ store: storeKind, agents: AGENTS, execution: { workers: { concurrency: 2 }, policy: { leaseSeconds: 10 } } });
    sources = [
      { name: 'runs', store: rt.runStore },
      { name: 'audit', store: rt.auditStore },
    ];
    store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
    queries = new ProjectionQueries(store, sources);
    // Projected live, while the runs wait and are decided.
    runners = sources.map((source) => new ProjectionRunner(store, source, { batchSize: 5 }));
    for (const runner of runners) await runner.start();
    w = await runWorkload();
    await caughtUp();
  });

  afterAll(async () => {
    for (const runner of runners ?? []) await runner.stop();
    store?.close();
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('run status', () => {
    it('has one row per run that agrees with the run folded by the domain, waiting runs included', async () => {
      for (const runId of w.all) {
        const state = stateOf(await rt.runEvents(runId));
        expect(queries.getRun(runId)).toMatchObject({
          runId,
          status: state.status,
          reason: state.settlement?.reason ?? null,
          deadLettered: state.settlement?.deadLettered ?? null,
          attempts: state.attempt,
          requeues: state.requeues,
          agent: state.agent,
          leaseOwner: null,
          // Steps started: a denied call never started.
          stepsTotal: [...state.steps.values()].filter((s) => s.starts > 0).length,
          approvalRound: state.pendingApproval?.round ?? null,
          waitingSince: state.pendingApproval?.requestedAt ?? state.pendingInput?.requestedAt ?? null,
          inputStepId: state.pendingInput?.stepId ?? null,
        });
      }
    });

    it('shows where each run stands', () => {
      const stands = Object.fromEntries(w.all.map((id) => [id, [queries.getRun(id)?.status, queries.getRun(id)?.reason]]));
      expect(stands).toEqual({
        [w.waiting]: ['WAITING_FOR_APPROVAL', null],
        [w.approved]: ['COMPLETED', 'COMPLETED'],
        [w.denied]: ['FAILED', 'APPROVAL_DENIED'],
        [w.cancelled]: ['CANCELLED', 'CANCELLED'],
        [w.toldModel]: ['COMPLETED', 'COMPLETED'],
        [w.input]: ['COMPLETED', 'COMPLETED'],
        [w.waitingForInput]: ['WAITING_FOR_INPUT', null],
        [w.preApproved]: ['COMPLETED', 'COMPLETED'],
      });
      expect(queries.getRun(w.denied)).toMatchObject({ failureCode: 'APPROVAL_DENIED', deadLettered: false, waitingSince: null });
      expect(queries.getRun(w.cancelled)).toMatchObject({ cancelRequested: true, cancelRequestedBy: 'key:carol', waitingSince: null, approvalRound: null });
      expect(queries.getRun(w.approved)).toMatchObject({ attempts: 2, nonIdempotentWriteSteps: 1 });
      expect(queries.getRun(w.toldModel)).toMatchObject({ attempts: 2, nonIdempotentWriteSteps: 0, readOnlySteps: 1 });
    });

    it('lists the runs waiting for approval, or for input, by status', () => {
      expect(queries.listRuns({ status: 'WAITING_FOR_APPROVAL' }).runs.map((r) => r.runId)).toEqual([w.waiting]);
      expect(queries.listRuns({ status: 'WAITING_FOR_INPUT' }).runs.map((r) => r.runId)).toEqual([w.waitingForInput]);
      expect(queries.listRuns({ status: 'WAITING_FOR_APPROVAL', agent: 'told' }).runs).toEqual([]);
    });
  });

  describe('approvals', () => {
    it('has one row per ApprovalRequested, as the run stream tells it', async () => {
      const rows = queries.listApprovals({ limit: 1000 }).approvals;
      const requests: ApprovalRequested[] = [];
      for (const runId of w.all) requests.push(...(await rt.runEvents(runId)).filter((e): e is ApprovalRequested => e.type === 'ApprovalRequested'));
      expect(rows.map((r) => r.approvalId).sort()).toEqual(requests.map((r) => `${r.data.runId}/r${r.data.round}`).sort());
      for (const request of requests) {
        const row = rows.find((r) => r.runId === request.data.runId && r.round === request.data.round);
        expect(row).toMatchObject({ calls: request.data.calls, onDenial: request.data.onDenial, requestedAt: request.data.requestedAt });
      }
      for (let i = 1; i < rows.length; i++) expect((rows[i - 1]?.requestedAt ?? 0) >= (rows[i]?.requestedAt ?? 0)).toBe(true);
    });

    it('says who decided what, why and when, and which requests were closed by a cancel', async () => {
      const byRun = Object.fromEntries(queries.listApprovals({ limit: 1000 }).approvals.map((r) => [r.runId, r]));
      const decidedAt = async (runId: string) => {
        const decision = (await rt.runEvents(runId)).find((e) => e.type === 'ApprovalGranted' || e.type === 'ApprovalDenied' || e.type === 'RunCancelled') as RunEvent;
        return (decision.data as { decidedAt?: number; cancelledAt?: number }).decidedAt ?? (decision.data as { cancelledAt: number }).cancelledAt;
      };
      expect(byRun[w.waiting]).toMatchObject({ agent: 'careful', round: 0, state: 'pending', decidedBy: null, reason: null, decidedAt: null, onDenial: 'endRun' });
      expect(byRun[w.waiting]?.calls).toEqual([
        { stepId: `${w.waiting}/r0/t1`, callIndex: 1, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { value: 'b' }, requirement: 'write' },
      ]);
      expect(byRun[w.approved]).toMatchObject({ state: 'approved', decidedBy: 'key:alice', reason: 'looks right', decidedAt: await decidedAt(w.approved) });
      expect(byRun[w.denied]).toMatchObject({ state: 'denied', decidedBy: 'key:bob', reason: 'not today', onDenial: 'endRun', decidedAt: await decidedAt(w.denied) });
      expect(byRun[w.cancelled]).toMatchObject({ state: 'cancelled', decidedBy: 'key:carol', reason: 'CANCELLED', decidedAt: await decidedAt(w.cancelled) });
      expect(byRun[w.toldModel]).toMatchObject({ agent: 'told', state: 'denied', decidedBy: 'key:bob', reason: null, onDenial: 'tellModel' });
      expect(Object.keys(byRun).sort()).toEqual([w.waiting, w.approved, w.denied, w.cancelled, w.toldModel].sort());
    });

    it('lists the pending requests, filtered and paged', () => {
      expect(queries.listApprovals({ state: 'pending' })).toEqual({ approvals: [expect.objectContaining({ runId: w.waiting, state: 'pending' })], nextCursor: null });
      expect(queries.listApprovals({ state: 'denied' }).approvals.map((r) => r.runId)).toEqual([w.toldModel, w.denied]);
      expect(queries.listApprovals({ agent: 'told' }).approvals.map((r) => r.runId)).toEqual([w.toldModel]);
      const all = queries.listApprovals().approvals.map((r) => r.approvalId);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = queries.listApprovals({ limit: 2, cursor });
        paged.push(...page.approvals.map((r) => r.approvalId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(paged).toEqual(all);
    });
  });

  describe('steps', () => {
    it('has every step the domain knows, a denied call included, with how each call was approved', async () => {
      for (const runId of w.all) {
        const state = stateOf(await rt.runEvents(runId));
        const rows = queries.getSteps(runId);
        expect(rows.map((r) => r.stepId).sort()).toEqual([...state.steps.keys()].sort());
        for (const row of rows) {
          const step = state.steps.get(row.stepId);
          expect(row).toMatchObject({ kind: step?.kind, effect: step?.effect, starts: step?.starts, status: step?.status });
          if (step?.kind === 'tool' && step.status === 'completed') expect(row.outcome).toBe(step.denied === true ? 'denied' : step.outcome);
          const grant = state.approvals.get(row.stepId);
          expect([row.stepId, row.approval]).toEqual([row.stepId, step?.denied === true ? 'denied' : (grant ?? null)]);
        }
      }
      for (const runId of [w.toldModel, w.denied]) {
        // The decision is the denied call's audit record, unless the runtime wrote one of its own for the step later (it does when a tellModel run resumes).
        const stepId = `${runId}/r0/t1`;
        const records = (await rt.auditEvents(runId)).filter(
          (e) => (e.data as { stepId?: string }).stepId === stepId || (e.type === 'ApprovalDecisionRecorded' && (e.data as { decision: string }).decision === 'denied'),
        );
        const last = records.at(-1);
        expect(queries.getSteps(runId).find((s) => s.stepId === stepId)).toMatchObject({
          status: 'completed',
          outcome: 'denied',
          approval: 'denied',
          starts: 0,
          auditState: 'recorded',
          auditSequence: (last?.data as { sequence: number }).sequence,
          auditOutcome: last?.type === 'AuditRecorded' ? (last.data as { outcome: string }).outcome : 'denied',
        });
      }
      expect(queries.getSteps(w.denied).find((s) => s.toolName === 'test.append')).toMatchObject({ auditOutcome: 'denied' });
      expect(queries.getSteps(w.approved).find((s) => s.toolName === 'test.append')).toMatchObject({ outcome: 'succeeded', approval: 'granted', auditState: 'recorded' });
      expect(queries.getSteps(w.preApproved).find((s) => s.toolName === 'test.append')).toMatchObject({ outcome: 'succeeded', approval: 'preApproved' });
      expect(queries.getSteps(w.waiting).map((s) => s.kind)).toEqual(['llm']);
      expect(queries.getSteps(w.waitingForInput).find((s) => s.toolName === 'test.ask')).toMatchObject({ status: 'started', approval: null });
    });
  });

  describe('audit review', () => {
    it('counts the approval decisions of the audit trail', async () => {
      const decisions = [];
      for (const runId of w.all) decisions.push(...(await rt.auditEvents(runId)).filter((e) => e.type === 'ApprovalDecisionRecorded'));
      expect(decisions).toHaveLength(3);
      expect(queries.auditReview().totals).toMatchObject({ approvalsGranted: 1, approvalsDenied: 2, writesWithoutAudit: 0 });
      expect(queries.auditReview({ runId: w.toldModel }).totals).toMatchObject({ approvalsGranted: 0, approvalsDenied: 1 });
    });
  });

  describe('on the QueryBus', () => {
    it('answers ListApprovals from the read model, and refuses a bad filter', async () => {
      const module = await Test.createTestingModule({
        imports: [CqrsModule.forRoot(), ProjectionsModule.forRoot({ databasePath: join(dir, 'bus.sqlite'), sources, runner: { batchSize: 50 } })],
      }).compile();
      const app = module.createNestApplication();
      await app.init();
      try {
        const bus = app.get(QueryBus);
        await caughtUp(app.get(ProjectionQueries));
        expect(await bus.execute(new ListApprovals({ state: 'pending' }))).toEqual(queries.listApprovals({ state: 'pending' }));
        expect(await bus.execute(new ListApprovals())).toEqual(queries.listApprovals());
        expect((await bus.execute(new ListRuns({ status: 'WAITING_FOR_INPUT' }))).runs.map((r) => r.runId)).toEqual([w.waitingForInput]);
        await expect(bus.execute(new ListApprovals({ state: 'open' } as unknown as ListApprovalsQuery))).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'query.state', rule: 'isIn' });
        await expect(bus.execute(new ListApprovals({ limit: 0 }))).rejects.toMatchObject({ field: 'query.limit', rule: 'min' });
        await expect(bus.execute(new ListApprovals({ cursor: 'not-a-cursor' }))).rejects.toMatchObject({ code: 'INVALID_QUERY', option: 'cursor' });
      } finally {
        await app.close();
      }
    });
  });

  describe('rebuild (invariant 8)', () => {
    it('rebuilds every projection into exactly the rows and checkpoints of the live ones', async () => {
      const before = store.dumpTables();
      const checkpoints = () => store.checkpoints().map(({ projection, source, position, eventsApplied }) => ({ projection, source, position, eventsApplied }));
      const checkpointsBefore = checkpoints();
      expect(before['approvals']).toHaveLength(5);
      const result = await new ProjectionRebuilder(store, sources).rebuild({ batchSize: 7 });
      expect(result.projections).toEqual(['runStatus', 'steps', 'auditReview', 'approvals']);
      expect(store.dumpTables()).toEqual(before);
      expect(checkpoints()).toEqual(checkpointsBefore);
    });

    it('rebuilds the approvals alone into the same rows, and a fresh file projected from the history has them too', async () => {
      const before = store.dumpTables();
      await new ProjectionRebuilder(store, sources).rebuild({ projections: ['approvals'] });
      expect(store.dumpTables()).toEqual(before);
      const fresh = ProjectionStore.open({ path: join(dir, 'fresh.sqlite') });
      try {
        // The audit store first this time: rows fed by both stores end the same whatever the order.
        for (const source of [...sources].reverse()) await new ProjectionRunner(fresh, source, { batchSize: 3 }).catchUp();
        expect(fresh.dumpTables()).toEqual(before);
      } finally {
        fresh.close();
      }
    });
  });
});
