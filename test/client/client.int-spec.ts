/**
 * `@agent-ledger/client` against the real service in this process (embedded
 * stores on disk, API keys, one worker): every method, its real answer
 * checked against the client's contract (closed JSON Schemas: no field
 * missing, none undocumented), and the typed errors.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { RunStatusRow } from '@agent-ledger/client';
import type { JsonSchema } from '@agent-ledger/client';
import { AgentLedgerApiError, AgentLedgerClient, AgentLedgerConnectionError, AgentLedgerWaitError, apiRoutes, apiSchemas, createClient, toJsonSchema } from '@agent-ledger/client';
import { decisionHistories, seedRun } from '@agent-ledger/runtime/testing';
import { scaled } from '../support/time-scale';
import type { ClientTestService } from './support/client-test-service';
import { conforms, startClientTestService } from './support/client-test-service';
import type { HttpTestApp } from '../../apps/agent-ledger/src/http/testing/http-test-app';
import { startHttpTestApp } from '../../apps/agent-ledger/src/http/testing/http-test-app';

describe('AgentLedgerClient against the real service', () => {
  jest.setTimeout(scaled(30_000));
  let service: ClientTestService;
  let client: AgentLedgerClient;
  const settle = { timeoutMs: scaled(15_000), pollIntervalMs: 20 };

  beforeAll(async () => {
    service = await startClientTestService();
    client = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.admin.key });
  });

  afterAll(async () => {
    await service?.close();
  });

  /** The run once the read model shows it settled (terminal, or waiting for a person). */
  async function settled(runId: string): Promise<RunStatusRow> {
    return conforms('RunStatusRow', await client.waitForSettled(runId, settle));
  }

  describe('the public and key routes', () => {
    it('health, ready, me, agents, the OpenAPI document and the metrics', async () => {
      expect(conforms('HealthReport', await client.health())).toEqual({ status: 'ok' });
      const ready = conforms('ReadinessReport', await client.ready());
      expect(ready).toMatchObject({ status: 'ok', auth: { mode: 'api-keys' } });
      expect(conforms('MeAnswer', await client.me())).toEqual({
        keyId: 'admin',
        scopes: ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read'],
        agents: null,
        authMode: 'api-keys',
      });
      const agents = conforms('AgentsAnswer', await client.listAgents());
      expect(agents.agents.map((agent) => [agent.name, agent.tools.map((tool) => `${tool.name}:${tool.effect}`)])).toEqual([
        ['approver', ['files.append:NON_IDEMPOTENT_WRITE']],
        ['asker', ['user.ask:READ_ONLY']],
        ['clock', ['clock.now:READ_ONLY']],
        ['writer', ['files.write:IDEMPOTENT_WRITE']],
      ]);
      const document = conforms('OpenApiDocument', await client.openApiDocument());
      expect(document.openapi).toMatch(/^3\./);
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/runs', '/runs/{runId}/approval', '/events']));
      const metrics = await client.metrics();
      expect(metrics).toMatch(/^# HELP agent_ledger_runs /m);
      expect(metrics).toMatch(/^agent_ledger_runs\{status="COMPLETED"\} \d+$/m);
    });

    it("the client's route table is the service's: every operation of /openapi.json, each answer status, and no other (but MCP's transport)", async () => {
      const document = await client.openApiDocument();
      const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown>; tags?: string[] }>>;
      // POST /mcp is MCP's Streamable HTTP transport, for MCP clients (docs/mcp-server.md), not a route of the typed client.
      expect(Object.keys(paths['/mcp'] ?? {})).toEqual(['post']);
      expect(paths['/mcp']?.['post']?.tags).toEqual(['mcp']);
      const operations = Object.entries(paths).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([method, operation]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method) && !(operation.tags ?? []).includes('mcp'))
          .map(([method, operation]) => `${method.toUpperCase()} ${path} ${Object.keys(operation.responses).filter((status) => status.startsWith('2')).sort().join(',')}`),
      );
      const routes = apiRoutes.map((route) => `${route.method} ${route.path} ${Object.keys(route.answers).filter((status) => status.startsWith('2')).sort().join(',')}`);
      expect([...routes].sort()).toEqual([...operations].sort());
      for (const route of apiRoutes) expect(typeof (client as unknown as Record<string, unknown>)[route.clientMethod]).toBe('function');
    });

    it("the contract's schemas have the fields of the service's document: each answer's and body's properties and required ones", async () => {
      type Operation = { requestBody?: { content: Record<string, { schema: { $ref?: string } }> }; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> };
      const document = (await client.openApiDocument()) as unknown as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, JsonSchema> } };
      const component = (ref: string | undefined): JsonSchema => document.components.schemas[(ref ?? '').replace('#/components/schemas/', '')] ?? {};
      const shape = (schema: JsonSchema) => ({ properties: Object.keys((schema.properties ?? {}) as object).sort(), required: [...((schema.required ?? []) as string[])].sort() });
      const compared: string[] = [];
      for (const route of apiRoutes) {
        const operation = document.paths[route.path]?.[route.method.toLowerCase()] as Operation;
        for (const [status, answer] of Object.entries(route.answers)) {
          if (answer === 'text/event-stream' || answer === 'text/plain') continue;
          const ref = operation.responses[status]?.content?.['application/json']?.schema.$ref;
          expect({ route: `${route.method} ${route.path} ${status}`, ref }).toEqual({ route: `${route.method} ${route.path} ${status}`, ref: `#/components/schemas/${answer}` });
          expect({ answer, ...shape(toJsonSchema(apiSchemas[answer])) }).toEqual({ answer, ...shape(component(ref)) });
          compared.push(answer);
        }
        if (route.body !== undefined) {
          const body = component(operation.requestBody?.content['application/json']?.schema.$ref);
          expect({ body: route.body, ...shape(toJsonSchema(apiSchemas[route.body])) }).toEqual({ body: route.body, ...shape(body) });
          compared.push(route.body);
        }
      }
      expect(compared.length).toBeGreaterThan(25);
    });

    it('a key limited to one agent sees that agent only', async () => {
      const limited = createClient({ baseUrl: service.baseUrl, apiKey: service.clockOnly.key });
      expect((await limited.me()).agents).toEqual(['clock']);
      expect((await limited.listAgents()).agents.map((agent) => agent.name)).toEqual(['clock']);
    });
  });

  describe('starting runs', () => {
    it('a queued start with an idempotency key, twice: the same run, the second a replay; the run completes', async () => {
      const idempotencyKey = `report-${randomUUID()}`;
      const first = conforms('StartRunAccepted', await client.startRun({ agent: 'clock', input: 'what time is it?', idempotencyKey }));
      expect(first).toMatchObject({ mode: 'queued', status: 'QUEUED', replayed: false });
      expect(first.runId).toMatch(/^ik-[0-9a-f]{32}$/);
      const second = conforms('StartRunAccepted', await client.startRun({ agent: 'clock', input: 'what time is it?', idempotencyKey }));
      expect(second).toMatchObject({ runId: first.runId, mode: 'queued', replayed: true });
      const run = await settled(first.runId);
      expect(run).toMatchObject({ runId: first.runId, agent: 'clock', status: 'COMPLETED', reason: 'COMPLETED', finalAnswer: 'tick' });
      const steps = conforms('RunStepsAnswer', await client.getSteps(first.runId));
      expect(steps.steps.map((step) => [step.kind, step.toolName, step.outcome])).toEqual([
        ['llm', null, 'responded'],
        ['tool', 'clock.now', 'succeeded'],
        ['llm', null, 'responded'],
      ]);
      expect(conforms('RunStatusRow', await client.getRun(first.runId))).toEqual(run);
    });

    it('an interactive start with an idempotency key, twice: the settled run, then a replay (segment null)', async () => {
      const idempotencyKey = `interactive-${randomUUID()}`;
      const first = conforms('StartRunInteractive', await client.startRun({ agent: 'writer', input: 'write it', mode: 'interactive', idempotencyKey }));
      expect(first).toMatchObject({ mode: 'interactive', replayed: false, segment: 'settled', run: { status: 'COMPLETED', answer: 'written', input: 'write it' } });
      const replay = conforms('StartRunInteractive', await client.startRun({ agent: 'writer', input: 'write it', mode: 'interactive', idempotencyKey }));
      expect(replay).toMatchObject({ runId: first.runId, replayed: true, segment: null, run: { status: 'COMPLETED' } });
    });

    it('the same idempotency key with another input: 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const idempotencyKey = `reused-${randomUUID()}`;
      await client.startRun({ agent: 'clock', input: 'one', idempotencyKey });
      const refused = client.startRun({ agent: 'clock', input: 'two', idempotencyKey });
      await expect(refused).rejects.toBeInstanceOf(AgentLedgerApiError);
      await expect(refused).rejects.toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    });
  });

  describe('listing runs', () => {
    it('pages through runs with the cursor, and iterates over every page', async () => {
      const agentRuns: string[] = [];
      for (let i = 0; i < 5; i++) agentRuns.push((await client.startRun({ agent: 'clock', input: `page ${i}`, runId: `page-${randomUUID()}` })).runId);
      for (const runId of agentRuns) await settled(runId);
      const all: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = conforms('RunPage', await client.listRuns({ agent: 'clock', limit: 2, ...(cursor === undefined ? {} : { cursor }) }));
        expect(page.runs.length).toBeLessThanOrEqual(2);
        all.push(...page.runs.map((run) => run.runId));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      expect(all).toEqual(expect.arrayContaining(agentRuns));
      expect(new Set(all).size).toBe(all.length);
      const iterated: string[] = [];
      for await (const run of client.iterateRuns({ agent: 'clock', limit: 2 })) iterated.push(run.runId);
      expect(iterated).toEqual(all);
      const since = await client.listRuns({ agent: 'clock', since: new Date(Date.now() + 60_000) });
      expect(since).toEqual({ runs: [], nextCursor: null });
      const completed = await client.listRuns({ status: 'COMPLETED', agent: 'clock', limit: 1000 });
      expect(completed.runs.every((run) => run.status === 'COMPLETED')).toBe(true);
    });
  });

  describe('a person in the loop', () => {
    it('approval: the run waits, the request is listed, an approval resumes it and it completes', async () => {
      const started = conforms('StartRunInteractive', await client.startRun({ agent: 'approver', input: 'append', mode: 'interactive' }));
      expect(started).toMatchObject({ segment: 'waiting', run: { status: 'WAITING_FOR_APPROVAL', pendingApproval: { round: 0, onDenial: 'endRun' } } });
      const waiting = await settled(started.runId);
      expect(waiting).toMatchObject({ status: 'WAITING_FOR_APPROVAL', approvalRound: 0 });
      const pending = conforms('ApprovalPage', await client.listApprovals({ state: 'pending', runId: started.runId }));
      expect(pending.approvals).toHaveLength(1);
      expect(pending.approvals[0]).toMatchObject({ approvalId: `${started.runId}/r0`, round: 0, state: 'pending', calls: [{ toolName: 'files.append', requirement: 'write', arguments: { path: 'log.txt' } }] });
      const approved = conforms('RunResumeAnswer', await client.approve(started.runId, { round: 0, reason: 'the line is right' }));
      expect(approved).toMatchObject({ status: 'QUEUED', auditStatement: 'recorded', run: { pendingApproval: null } });
      const done = await client.waitForSettled(started.runId, { ...settle, settleOn: 'terminal' });
      expect(done).toMatchObject({ status: 'COMPLETED', finalAnswer: 'appended' });
      const decided: string[] = [];
      for await (const row of client.iterateApprovals({ runId: started.runId, limit: 1 })) decided.push(`${row.approvalId}:${row.state}:${row.decidedBy ?? ''}`);
      expect(decided).toEqual([`${started.runId}/r0:approved:key:admin`]);
      const again = client.approve(started.runId);
      await expect(again).rejects.toMatchObject({ status: 409, code: 'RUN_ALREADY_SETTLED' });
    });

    it('denial ends the run APPROVAL_DENIED; a decision naming another round is refused naming round', async () => {
      const started = await client.startRun({ agent: 'approver', input: 'append', mode: 'interactive' });
      const mismatch = client.decideApproval(started.runId, { decision: 'approve', round: 3 });
      await expect(mismatch).rejects.toMatchObject({ status: 409, code: 'APPROVAL_ROUND_MISMATCH', field: 'round', body: { waitingRound: 0 } });
      const denied = conforms('RunResumeAnswer', await client.deny(started.runId, { reason: 'not this file' }));
      expect(denied).toMatchObject({ status: 'FAILED', run: { reason: 'APPROVAL_DENIED' } });
    });

    it('input: the run asks, the answer resumes it and it completes', async () => {
      const started = conforms('StartRunInteractive', await client.startRun({ agent: 'asker', input: 'ask me', mode: 'interactive' }));
      expect(started.run).toMatchObject({ status: 'WAITING_FOR_INPUT', pendingInput: { toolName: 'user.ask', prompt: 'Which file?' } });
      const answered = conforms('RunResumeAnswer', await client.submitInput(started.runId, { file: 'notes.txt' }));
      expect(answered).toMatchObject({ status: 'QUEUED', run: { pendingInput: null } });
      expect(await client.waitForSettled(started.runId, { ...settle, settleOn: 'terminal' })).toMatchObject({ status: 'COMPLETED', finalAnswer: 'got it' });
      await expect(client.submitInput(started.runId, 'again')).rejects.toMatchObject({ status: 409, code: 'RUN_ALREADY_SETTLED' });
    });

    it('waitForSettled with settleOn terminal times out on a waiting run, with a typed error carrying the run', async () => {
      const started = await client.startRun({ agent: 'asker', input: 'ask me', mode: 'interactive' });
      const wait = client.waitForSettled(started.runId, { timeoutMs: 300, pollIntervalMs: 20, settleOn: 'terminal' });
      await expect(wait).rejects.toBeInstanceOf(AgentLedgerWaitError);
      await expect(wait).rejects.toMatchObject({ reason: 'timeout', runId: started.runId, lastSeen: { status: 'WAITING_FOR_INPUT' } });
      const controller = new AbortController();
      const aborted = client.waitForSettled(started.runId, { signal: controller.signal, settleOn: 'terminal', pollIntervalMs: 20 });
      controller.abort();
      await expect(aborted).rejects.toMatchObject({ name: 'AgentLedgerWaitError', reason: 'aborted' });
    });
  });

  describe('operating', () => {
    it('cancel: a waiting run is cancelled at once; a second cancel is refused RUN_ALREADY_SETTLED', async () => {
      const started = await client.startRun({ agent: 'asker', input: 'ask me', mode: 'interactive' });
      const cancelled = conforms('CancelRunAnswer', await client.cancelRun(started.runId, { reason: 'not needed' }));
      expect(cancelled).toMatchObject({ runId: started.runId, cancelRequested: true, run: { status: 'CANCELLED', reason: 'CANCELLED', cancelRequestedBy: 'key:admin' } });
      await expect(client.cancelRun(started.runId)).rejects.toMatchObject({ status: 409, code: 'RUN_ALREADY_SETTLED', body: { status: 'CANCELLED' } });
    });

    it('requeue: a dead-lettered run is continued by a new run', async () => {
      const runId = `dead-${randomUUID()}`;
      await seedRun(service.app.stores.runStore, runId, decisionHistories.deadLetteredMidAppend(runId, 'approver'));
      await expect(client.requeueRun(runId)).rejects.toMatchObject({ status: 409, code: 'IN_FLIGHT_WRITE_UNRESOLVED' });
      const requeued = conforms('RequeueRunAccepted', await client.requeueRun(runId, { reason: 'checked', resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } }));
      expect(requeued.runId).toBe(runId);
      expect(requeued.continuationRunId).not.toBe(runId);
      expect(await settled(requeued.continuationRunId)).toMatchObject({ continuationOf: runId });
    });

    it('audit review and audit chains', async () => {
      const started = await client.startRun({ agent: 'writer', input: 'write it', mode: 'interactive' });
      const review = conforms('AuditReviewAnswer', await client.auditReview());
      expect(review.totals.writes).toBeGreaterThanOrEqual(1);
      expect(review.findings).toBe(false);
      expect(review.verdict.findings).toBe(false);
      await settled(started.runId);
      const oneRun = conforms('AuditReviewAnswer', await client.auditReview({ runId: started.runId, limit: 10 }));
      expect(oneRun.writes.map((write) => [write.runId, write.toolName, write.audited])).toEqual([[started.runId, 'files.write', true]]);
      const chains = conforms('AuditStoreVerdict', await client.auditChains({ runId: started.runId }));
      expect(chains).toMatchObject({ runs: 1, brokenRuns: [], breaks: [], findings: false, verification: { mode: 'full' }, totals: { writesExecuted: 1, writesAudited: 1 } });
      expect(chains.records).toBeGreaterThanOrEqual(1);
      expect(conforms('AuditStoreVerdict', await client.auditChains()).findings).toBe(false);
    });

    it('projections, and a rebuild followed to its end', async () => {
      const status = conforms('ProjectionsAnswer', await client.projections());
      expect(status.projections.map((projection) => projection.projection).sort()).toEqual(['approvals', 'auditReview', 'runStatus', 'steps']);
      const started = conforms('RebuildAnswer', await client.startRebuild({ projection: 'approvals' }));
      expect(started.rebuild).toMatchObject({ projections: ['approvals'], requestedBy: 'key:admin' });
      const deadline = Date.now() + scaled(15_000);
      let state = started.rebuild.state;
      while (state === 'running' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        state = conforms('RebuildAnswer', await client.rebuildStatus()).rebuild.state;
      }
      expect(state).toBe('succeeded');
      expect((await client.rebuildStatus()).rebuild.result?.projections).toEqual(['approvals']);
    });
  });

  describe('typed errors', () => {
    it('bad input: 400 INVALID_FIELD naming the field and the rule', async () => {
      await expect(client.startRun({ agent: 'nobody', input: 'x' })).rejects.toMatchObject({ name: 'AgentLedgerApiError', status: 400, code: 'INVALID_FIELD', field: 'agent' });
      const badMode = client.startRun({ agent: 'clock', input: 'x', mode: 'sometimes' as 'queued' });
      await expect(badMode).rejects.toMatchObject({ status: 400, code: 'INVALID_FIELD', field: 'mode', rule: 'isIn', issues: [{ field: 'mode', rule: 'isIn' }] });
      const unknownField = client.cancelRun('any-run', { requestedBy: 'someone' } as never);
      await expect(unknownField).rejects.toMatchObject({ status: 400, field: 'requestedBy', rule: 'unknownField' });
      await expect(client.listRuns({ limit: 5000 })).rejects.toMatchObject({ status: 400, field: 'limit' });
      await expect(client.listRuns({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ status: 400, code: 'INVALID_QUERY' });
      const error = await client.startRun({ agent: 'clock', input: 'x', runId: 'r', idempotencyKey: 'k' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AgentLedgerApiError);
      // The error body is open: further fields (here the domain rule's `problem`) may follow the documented ones.
      expect(conforms('ApiErrorBody', (error as AgentLedgerApiError).body, { closed: false })).toMatchObject({ field: 'idempotencyKey', rule: 'invalid', problem: expect.any(String) });
    });

    it('no such run: 404 RUN_NOT_FOUND, on every run route', async () => {
      const runId = `missing-${randomUUID()}`;
      for (const call of [() => client.getRun(runId), () => client.getSteps(runId), () => client.cancelRun(runId), () => client.approve(runId), () => client.submitInput(runId, 1)]) {
        await expect(call()).rejects.toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
      }
    });

    it('401 without a key, 403 SCOPE_MISSING without the scope, 403 NOT_ENTITLED for another agent', async () => {
      const anonymous = new AgentLedgerClient({ baseUrl: service.baseUrl });
      await expect(anonymous.listRuns()).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      await expect(anonymous.health()).resolves.toEqual({ status: 'ok' });
      const wrongKey = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: 'not-a-key' });
      await expect(wrongKey.me()).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      const reader = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.reader.key });
      await expect(reader.startRun({ agent: 'clock', input: 'x' })).rejects.toMatchObject({ status: 403, code: 'SCOPE_MISSING', body: { requiredScopes: ['runs:submit'] } });
      const clockOnly = new AgentLedgerClient({ baseUrl: service.baseUrl, apiKey: service.clockOnly.key });
      await expect(clockOnly.startRun({ agent: 'writer', input: 'x' })).rejects.toMatchObject({ status: 403, code: 'NOT_ENTITLED', field: 'agent' });
    });

    it('a service that cannot be reached: AgentLedgerConnectionError network; a timeout: timeout', async () => {
      const port = await closedPort();
      const unreachable = new AgentLedgerClient({ baseUrl: `http://127.0.0.1:${port}` });
      const failure = unreachable.health();
      await expect(failure).rejects.toBeInstanceOf(AgentLedgerConnectionError);
      await expect(failure).rejects.toMatchObject({ reason: 'network' });
      // A listener that accepts and never answers.
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const slow = new AgentLedgerClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 100 });
        await expect(slow.health()).rejects.toMatchObject({ name: 'AgentLedgerConnectionError', reason: 'timeout' });
      } finally {
        await new Promise<void>((resolve) => {
          silent.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        });
      }
    });
  });
});

describe('AgentLedgerClient against the service in its development mode (no keys)', () => {
  jest.setTimeout(scaled(30_000));
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('needs no key: me() says so, ready() carries the warning, and a run starts', async () => {
    const client = new AgentLedgerClient({ baseUrl: app.baseUrl });
    const me = conforms('MeAnswer', await client.me());
    expect(me).toMatchObject({ keyId: null, agents: null, authMode: 'disabled-on-loopback' });
    expect([...me.scopes].sort()).toEqual(['audit:read', 'metrics:read', 'operate', 'runs:approve', 'runs:read', 'runs:submit']);
    const ready = conforms('ReadinessReport', await client.ready());
    expect(ready.auth).toEqual({ mode: 'disabled-on-loopback', warning: expect.stringMatching(/authentication is disabled/i) });
    // An input typed by an interface: any value that serialises to JSON.
    interface Task {
      readonly file: string;
      readonly lines: readonly number[];
    }
    const task: Task = { file: 'report.txt', lines: [1, 2] };
    const started = conforms('StartRunInteractive', await client.startRun({ agent: 'clock', input: task, mode: 'interactive' }));
    expect(started.run).toMatchObject({ status: 'COMPLETED', input: { file: 'report.txt', lines: [1, 2] } });
  });
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
