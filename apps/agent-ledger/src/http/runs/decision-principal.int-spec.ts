import { randomUUID } from 'node:crypto';
import { auditStreamName, runStreamName } from '@agent-ledger/runtime';
import { decisionHistories as histories, seedRun as seed, storedEvents as eventsOf } from '@agent-ledger/runtime/testing';
import type { HttpTestApp, HttpTestKey } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';

/*
 * Who made a decision is the authenticated caller, never a name in the body:
 * every route that records a decision records the caller's principal
 * (`{ kind: 'apiKey', id }` with keys, `{ kind: 'development' }` without),
 * and a body that names an actor is refused (400 naming the field), with
 * nothing written.
 */

/** Runs the decision routes as `key` and checks each records `principal`. */
function decisionRoutes(get: () => { app: HttpTestApp; key: HttpTestKey | null }, principal: Record<string, unknown>) {
  const call = (method: string, path: string, body?: unknown) => {
    const { app, key } = get();
    return app.call(method, path, { key, body });
  };
  const runEvents = (runId: string) => eventsOf(get().app.stores.runStore, runStreamName(runId));
  const auditEvents = (runId: string) => eventsOf(get().app.stores.auditStore, auditStreamName(runId));

  it('a start records the caller in RunRequested and states it first in the audit chain; the run and its read model show it', async () => {
    const started = await call('POST', '/runs', { agent: 'clock', input: 'now', mode: 'interactive' });
    expect(started.status).toBe(200);
    const { runId, run } = started.body as { runId: string; run: { startedBy: string } };
    const label = principal.kind === 'apiKey' ? `key:${String(principal.id)}` : 'development';
    expect(run.startedBy).toBe(label);
    expect((await runEvents(runId)).find((e) => e.type === 'RunRequested')?.data).toMatchObject({ requestedBy: principal });
    const audit = await auditEvents(runId);
    expect(audit[0]).toMatchObject({ type: 'RunStartRecorded', data: { runId, requestedBy: principal, agent: 'clock', mode: 'interactive', sequence: 1 } });
    expect(audit.filter((e) => e.type === 'RunStartRecorded')).toHaveLength(1);
    const row = await call('GET', `/runs/${runId}`);
    expect(row.body).toMatchObject({ runId, startedBy: label });
  });

  it.each(['startedBy', 'requestedBy', 'principal'])('a start refuses a body naming who starts it (%s) with 400 naming the field, and starts nothing', async (field) => {
    const runId = `refused-${randomUUID()}`;
    const refused = await call('POST', '/runs', { agent: 'clock', input: 'now', runId, [field]: 'someone-else' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'INVALID_FIELD', field });
    expect((refused.body as { message: string }).message).toMatch(/authenticated caller/);
    expect(await runEvents(runId)).toEqual([]);
  });

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
    await seed(get().app.stores.runStore, runId, histories.deadLetteredMidAppend(runId, 'writer'));
    const requeued = await call('POST', `/runs/${runId}/requeue`, { reason: 'the target was checked', resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } });
    expect(requeued.status).toBe(202);
    expect((await runEvents(runId)).find((e) => e.type === 'RunRequeuedByOperator')?.data).toMatchObject({ requestedBy: principal, reason: 'the target was checked' });
    // The continuation was started by the operator who requeued.
    const { continuationRunId } = requeued.body as { continuationRunId: string };
    expect((await runEvents(continuationRunId)).find((e) => e.type === 'RunRequested')?.data).toMatchObject({ requestedBy: principal, continuation: { of: runId } });
    expect((await auditEvents(continuationRunId))[0]).toMatchObject({ type: 'RunStartRecorded', data: { requestedBy: principal, continuationOf: runId } });
    expect((await auditEvents(runId)).find((e) => e.type === 'WriteResolutionRecorded')?.data).toMatchObject({ resolvedBy: principal, note: 'no line in log.txt' });
  });

  it.each(['approve', 'deny'] as const)('%s records the caller in the run decision and in the audited decision', async (decision) => {
    const runId = `waits-${randomUUID()}`;
    await seed(get().app.stores.runStore, runId, histories.waitingForApproval(runId, 'writer'));
    const decided = await call('POST', `/runs/${runId}/approval`, { decision, reason: 'checked' });
    expect(decided.status).toBe(200);
    const type = decision === 'approve' ? 'ApprovalGranted' : 'ApprovalDenied';
    expect((await runEvents(runId)).find((e) => e.type === type)?.data).toMatchObject({ decidedBy: principal, reason: 'checked' });
    expect((await auditEvents(runId)).find((e) => e.type === 'ApprovalDecisionRecorded')?.data).toMatchObject({ decidedBy: principal });
  });

  it('input records the caller in InputSubmitted', async () => {
    const runId = `asks-${randomUUID()}`;
    await seed(get().app.stores.runStore, runId, histories.waitingForInput(runId, 'writer'));
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
    await seed(get().app.stores.runStore, runId, histories.waitingForApproval(runId, 'writer'));
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
