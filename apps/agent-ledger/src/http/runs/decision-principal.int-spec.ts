import { randomUUID } from 'node:crypto';
import type { ModelResponse, RunEvent, StepTool } from '@agent-ledger/domain';
import { createRunDecider, RUN_EVENT_SCHEMA_VERSIONS } from '@agent-ledger/domain';
import { RunHistory } from '@agent-ledger/domain/testing/run-history';
import type { EventStore } from '@agent-ledger/event-store';
import { auditStreamName, runStreamName } from '@agent-ledger/runtime';
import type { HttpTestApp, HttpTestKey } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';

/*
 * Who made a decision is the authenticated caller, never a name in the body:
 * every route that records a decision records the caller's principal
 * (`{ kind: 'apiKey', id }` with keys, `{ kind: 'development' }` without),
 * and a body that names an actor is refused (400 naming the field), with
 * nothing written.
 */

const SECOND = 1000;
const WORKER = 'worker:test:1';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const APPEND: StepTool = { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' };
const ASK: StepTool = { name: 'user.ask', effect: 'READ_ONLY' };
const appendCall: ModelResponse = { type: 'toolCalls', calls: [{ toolName: 'files.append', arguments: { path: 'log.txt', content: 'hi' } }] };
const askCall: ModelResponse = { type: 'toolCalls', calls: [{ toolName: 'user.ask', arguments: { question: 'which ticket?' } }] };

/** A run claimed by a worker whose round 0 asked for `response`, at `t0`. */
function responded(runId: string, t0: number, response: ModelResponse): RunHistory {
  return new RunHistory(decider, runId)
    .send({ type: 'RequestRun', data: { runId, agent: 'writer', input: 'go', mode: 'queued' }, metadata: { now: t0 } })
    .claim(WORKER, t0)
    .startLlm(LEASE, 0, t0)
    .respond(LEASE, 0, response, t0);
}

/** Histories of runs in each state a decision needs (recorded a minute ago, so the service's clock is after them). */
const histories = {
  waitingForApproval(runId: string): readonly RunEvent[] {
    const t0 = Date.now() - 60 * SECOND;
    return responded(runId, t0, appendCall).send({
      type: 'RequestApproval',
      data: { runId, ...LEASE, round: 0, calls: [{ callIndex: 0, effect: 'NON_IDEMPOTENT_WRITE', requirement: 'write' }], onDenial: 'endRun' },
      metadata: { now: t0 },
    }).events;
  },
  waitingForInput(runId: string): readonly RunEvent[] {
    const t0 = Date.now() - 60 * SECOND;
    return responded(runId, t0, askCall)
      .startTool(LEASE, 0, 0, ASK, t0)
      .send({ type: 'RequestInput', data: { runId, ...LEASE, round: 0, callIndex: 0, prompt: 'Which ticket?' }, metadata: { now: t0 } }).events;
  },
  /** Dead-lettered (WRITE_INTERRUPTED) while a non-idempotent append was in flight: a requeue needs a resolution. */
  deadLetteredMidAppend(runId: string): readonly RunEvent[] {
    const t0 = Date.now() - 3600 * SECOND;
    return responded(runId, t0, appendCall)
      .startTool(LEASE, 0, 0, APPEND, t0)
      .reap(t0 + 1800 * SECOND).events;
  },
};

async function seed(store: EventStore, runId: string, events: readonly RunEvent[]): Promise<void> {
  await store.append(
    runStreamName(runId),
    events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data as unknown as Record<string, unknown>, metadata: { schemaVersion: RUN_EVENT_SCHEMA_VERSIONS[e.type] } })),
    { expectedRevision: 'no_stream' },
  );
}

async function eventsOf(store: EventStore, stream: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const read = await store.readStream(stream);
  return read.events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
}

/** Runs the decision routes as `key` and checks each records `principal`. */
function decisionRoutes(get: () => { app: HttpTestApp; key: HttpTestKey | null }, principal: Record<string, unknown>) {
  const call = (method: string, path: string, body?: unknown) => {
    const { app, key } = get();
    return app.call(method, path, { key, body });
  };
  const runEvents = (runId: string) => eventsOf(get().app.stores.runStore, runStreamName(runId));
  const auditEvents = (runId: string) => eventsOf(get().app.stores.auditStore, auditStreamName(runId));

  it('cancel records the caller in CancelRequested and RunCancelled; the body only gives a reason', async () => {
    const started = await call('POST', '/runs', { agent: 'clock', input: 'now' });
    expect(started.status).toBe(202);
    const runId = (started.body as { runId: string }).runId;
    const cancelled = await call('POST', `/runs/${runId}/cancel`, { reason: 'not needed' });
    expect(cancelled.status).toBe(200);
    const events = await runEvents(runId);
    expect(events.find((e) => e.type === 'CancelRequested')?.data).toMatchObject({ requestedBy: principal, reason: 'not needed' });
    expect(events.find((e) => e.type === 'RunCancelled')?.data).toMatchObject({ requestedBy: principal });
  });

  it('requeue records the caller in RunRequeuedByOperator and in the audited write resolution', async () => {
    const runId = `dead-${randomUUID()}`;
    await seed(get().app.stores.runStore, runId, histories.deadLetteredMidAppend(runId));
    const requeued = await call('POST', `/runs/${runId}/requeue`, { reason: 'the target was checked', resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } });
    expect(requeued.status).toBe(202);
    expect((await runEvents(runId)).find((e) => e.type === 'RunRequeuedByOperator')?.data).toMatchObject({ requestedBy: principal, reason: 'the target was checked' });
    expect((await auditEvents(runId)).find((e) => e.type === 'WriteResolutionRecorded')?.data).toMatchObject({ resolvedBy: principal, note: 'no line in log.txt' });
  });

  it.each(['approve', 'deny'] as const)('%s records the caller in the run decision and in the audited decision', async (decision) => {
    const runId = `waits-${randomUUID()}`;
    await seed(get().app.stores.runStore, runId, histories.waitingForApproval(runId));
    const decided = await call('POST', `/runs/${runId}/approval`, { decision, reason: 'checked' });
    expect(decided.status).toBe(200);
    const type = decision === 'approve' ? 'ApprovalGranted' : 'ApprovalDenied';
    expect((await runEvents(runId)).find((e) => e.type === type)?.data).toMatchObject({ decidedBy: principal, reason: 'checked' });
    expect((await auditEvents(runId)).find((e) => e.type === 'ApprovalDecisionRecorded')?.data).toMatchObject({ decidedBy: principal });
  });

  it('input records the caller in InputSubmitted', async () => {
    const runId = `asks-${randomUUID()}`;
    await seed(get().app.stores.runStore, runId, histories.waitingForInput(runId));
    const submitted = await call('POST', `/runs/${runId}/input`, { input: 'T-7' });
    expect(submitted.status).toBe(200);
    expect((await runEvents(runId)).find((e) => e.type === 'InputSubmitted')?.data).toMatchObject({ submittedBy: principal, input: 'T-7' });
  });

  it('a rebuild started over HTTP names the caller', async () => {
    const started = await call('POST', '/projections/rebuild', { projection: 'approvals' });
    expect(started.status).toBe(202);
    expect((started.body as { rebuild: { requestedBy: unknown } }).rebuild.requestedBy).toBe(principal.kind === 'apiKey' ? `key:${String(principal.id)}` : 'development');
  });

  it.each([
    ['cancel', 'requestedBy'],
    ['requeue', 'requestedBy'],
  ] as const)('%s refuses a body naming an actor (%s) with 400 naming the field, and writes nothing', async (route, field) => {
    const started = await call('POST', '/runs', { agent: 'clock', input: 'now' });
    const runId = (started.body as { runId: string }).runId;
    const before = await runEvents(runId);
    const refused = await call('POST', `/runs/${runId}/${route}`, { [field]: 'someone-else', reason: 'mine' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'INVALID_FIELD', field });
    expect((refused.body as { message: string }).message).toMatch(/authenticated caller/);
    expect((refused.body as { message: string }).message).toMatch(/reason/);
    expect(await runEvents(runId)).toEqual(before);
  });

  it('the approvals read model shows the caller as its label', async () => {
    const runId = `shown-${randomUUID()}`;
    await seed(get().app.stores.runStore, runId, histories.waitingForApproval(runId));
    expect((await call('POST', `/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    const label = principal.kind === 'apiKey' ? `key:${String(principal.id)}` : 'development';
    const deadline = Date.now() + 20_000;
    for (;;) {
      const page = await call('GET', `/approvals?runId=${runId}`);
      const row = (page.body as { approvals?: Array<{ runId: string; decidedBy: string | null }> }).approvals?.find((a) => a.runId === runId);
      if (row?.decidedBy !== undefined && row.decidedBy !== null) {
        expect(row.decidedBy).toBe(label);
        break;
      }
      if (Date.now() > deadline) throw new Error(`the approvals read model never showed the decision of ${runId}: ${JSON.stringify(page.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
}

describe('the principal of a decision over HTTP', () => {
  describe('with API keys: the key that called', () => {
    const ops = httpTestKey('ops-team', ['operate', 'runs:approve', 'runs:submit', 'runs:read']);
    let app: HttpTestApp;
    beforeAll(async () => {
      app = await startHttpTestApp({ keys: [ops] });
    });
    afterAll(() => app.close());

    decisionRoutes(() => ({ app, key: ops }), { kind: 'apiKey', id: 'ops-team' });

    it('no route that takes a body answers without a key', async () => {
      const document = (await app.call('GET', '/openapi.json', { key: ops })).body as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
      const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([, operation]) => operation.requestBody !== undefined)
          .map(([method]) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'some-run')] as const),
      );
      expect(routes.length).toBeGreaterThanOrEqual(6);
      for (const [method, path] of routes) expect([method, path, (await app.call(method, path, { key: null, body: {} })).status]).toEqual([method, path, 401]);
    });
  });

  describe('in the development mode: development', () => {
    let app: HttpTestApp;
    beforeAll(async () => {
      app = await startHttpTestApp();
    });
    afterAll(() => app.close());

    decisionRoutes(() => ({ app, key: null }), { kind: 'development' });
  });
});
