/**
 * Approvals and input over HTTP, end to end, on each store (the embedded
 * SQLite store, and the EventStoreDB adapter on the protocol-level server):
 * the service is a child process (built, in CI) with API keys, driven over
 * HTTP. A write that the agent does not pre-approve waits for a person
 * (`POST /runs/{runId}/approval`), a tool that asks waits for input
 * (`POST /runs/{runId}/input`), and `GET /approvals` lists the requests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditReviewReport, ApprovalPage, ApprovalRow, RunStatusRow } from '@agent-ledger/projections';
import type { ApiErrorBody } from '../../libs/http/src/errors/api-error-body';
import type { ProjectionsAnswer } from '../../libs/http/src/projections/read-models.controller';
import type { RunResumeAnswer, StartRunInteractive } from '../../libs/http/src/runs/run-answers';
import type { RunStepsAnswer } from '../../libs/http/src/runs/runs.controller';
import { startEsdbTestServer } from '../support/esdb-server';
import type { TestKey } from './support/http-auth-support';
import { apiKeysEnv, parsePrometheusText, sampleValue, testKey, withKey } from './support/http-auth-support';
import type { HoldingModelServer, HttpService, JsonAnswer, SseFrame } from './support/http-service';
import { eventually, openSse, request, startHoldingModelServer, startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

/** Where the service keeps its events. */
interface Backend {
  readonly env: Readonly<Record<string, string>>;
  cleanup(): Promise<void>;
}

const BACKENDS: Array<[string, () => Promise<Backend>]> = [
  ['the embedded store', async () => ({ env: {}, cleanup: async () => undefined })],
  [
    'EventStoreDB (protocol-level server)',
    async () => {
      const server = await startEsdbTestServer();
      return { env: { EVENTSTORE_CONNECTION_STRING: server.connectionString }, cleanup: () => server.stop() };
    },
  ],
];

const APPEND_CALL = { toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { path: 'approver.log', content: 'approved line\n' }, requirement: 'write' };

describe.each(BACKENDS)('approvals and input over HTTP on %s (e2e)', (_storeName, backend) => {
  jest.setTimeout(scaled(60_000));
  /** Every scope: who decides is recorded as the key, `key:reviewer`. */
  const reviewer = testKey('reviewer', ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read']);
  /** Starts runs and answers them, but may not approve. */
  const submitter = testKey('submitter', ['runs:submit', 'runs:read']);
  /** May approve, submit and read, but only the runs of `clock`. */
  const clockOnly = testKey('clock-only', ['runs:approve', 'runs:submit', 'runs:read'], { agents: ['clock'] });
  /** Reads the runs of `approver` only. */
  const approverReader = testKey('approver-reader', ['runs:read'], { agents: ['approver'] });
  const keys: TestKey[] = [reviewer, submitter, clockOnly, approverReader];

  let model: HoldingModelServer;
  let store: Backend;
  let service: HttpService;
  let base: string;
  /** The first approver run: approved in the third test. */
  let approvedRun: string;
  let deniedRun: string;
  let toldRun: string;
  let askerRun: string;

  const as = (key: TestKey) => withKey(base, key);
  const approverLog = (): string | null => (existsSync(join(service.workspaceDir, 'approver.log')) ? readFileSync(join(service.workspaceDir, 'approver.log'), 'utf8') : null);
  const runsHead = async (): Promise<string | null> => {
    const answer = await as(reviewer).get<ProjectionsAnswer>('/projections');
    return answer.body.projections.find((p) => p.source === 'runs')?.headPosition ?? null;
  };
  const runRow = async (runId: string): Promise<RunStatusRow> => {
    const answer = await as(reviewer).get<RunStatusRow>(`/runs/${runId}`);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  /** Waits until the read model shows the run with `status`. */
  const rowWith = (runId: string, status: string): Promise<RunStatusRow> =>
    eventually(
      async () => {
        const answer = await as(reviewer).get<RunStatusRow>(`/runs/${runId}`);
        return answer.status === 200 && answer.body.status === status ? answer.body : undefined;
      },
      `run ${runId} ${status} in the read model`,
      20_000,
    );
  /** Waits until the read model shows the run settled (`settledRun` of http-service, with a key). */
  const settled = (runId: string): Promise<RunStatusRow> =>
    eventually(
      async () => {
        const answer = await as(reviewer).get<RunStatusRow>(`/runs/${runId}`);
        return answer.status === 200 && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(answer.body.status) ? answer.body : undefined;
      },
      `run ${runId} to be settled in the read model`,
      20_000,
    );
  const approvalOf = async (runId: string, state?: string): Promise<ApprovalRow> =>
    eventually(async () => {
      const page = await as(reviewer).get<ApprovalPage>(`/approvals?runId=${runId}`);
      const row = page.body.approvals[0];
      return row !== undefined && (state === undefined || row.state === state) ? row : undefined;
    }, `the approval request of ${runId}${state === undefined ? '' : ` ${state}`}`);
  const queue = async (key: TestKey, agent: string, input: string): Promise<string> => {
    const answer = await as(key).post<{ runId: string }>('/runs', { agent, input });
    expect(answer.status).toBe(202);
    return answer.body.runId;
  };
  const decide = (runId: string, body: unknown, key: TestKey = reviewer) => as(key).post<RunResumeAnswer & ApiErrorBody>(`/runs/${runId}/approval`, body);
  const expectAnswer = (answer: JsonAnswer<RunResumeAnswer>, runId: string, status: string): void => {
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['auditStatement', 'run', 'runId', 'status']);
    expect(answer.body).toMatchObject({ runId, status, run: { runId, status }, auditStatement: 'recorded' });
  };
  /** The frames of a run's stream, from its start until `stop`. */
  const history = async (runId: string, stop: (frame: SseFrame) => boolean): Promise<SseFrame[]> => {
    const stream = await openSse(`${base}/runs/${runId}/events`, as(reviewer).headers());
    try {
      return await stream.until(stop);
    } finally {
      stream.close();
    }
  };

  beforeAll(async () => {
    model = await startHoldingModelServer();
    store = await backend();
    service = await startHttpService({ agentsYaml: testAgentsYaml(model.baseUrl), env: { ...store.env, API_KEYS: apiKeysEnv(keys), WORKER_CONCURRENCY: '2' } });
    base = service.baseUrl;
  }, scaled(90_000));

  afterAll(async () => {
    await service?.stop();
    await model?.close();
    await store?.cleanup();
  }, scaled(30_000));

  it('a queued run whose write is not pre-approved waits WAITING_FOR_APPROVAL holding no lease; nothing is appended; the request is pending in GET /approvals and in /metrics', async () => {
    approvedRun = await queue(reviewer, 'approver', 'write the report and log it');
    const row = await rowWith(approvedRun, 'WAITING_FOR_APPROVAL');
    expect(row).toMatchObject({ agent: 'approver', approvalRound: 1, leaseOwner: null, idempotentWriteSteps: 1, nonIdempotentWriteSteps: 0, reason: null });
    expect(row.waitingSince).toEqual(expect.any(Number));
    // The pre-approved write ran; the one that waits did not.
    expect(readFileSync(join(service.workspaceDir, 'approver-report.txt'), 'utf8')).toBe('approved report');
    expect(approverLog()).toBeNull();

    const pending = await as(reviewer).get<ApprovalPage>('/approvals?state=pending');
    expect(pending.status).toBe(200);
    const request = pending.body.approvals.find((a) => a.runId === approvedRun);
    expect(request).toEqual({
      approvalId: `${approvedRun}/r1`,
      runId: approvedRun,
      agent: 'approver',
      round: 1,
      calls: [{ stepId: `${approvedRun}/r1/t0`, callIndex: 0, ...APPEND_CALL }],
      onDenial: 'endRun',
      requestedAt: row.waitingSince,
      state: 'pending',
      decidedBy: null,
      reason: null,
      decidedAt: null,
    });
    expect((await as(reviewer).get<ApprovalPage>('/approvals?state=approved')).body.approvals.some((a) => a.runId === approvedRun)).toBe(false);

    const scrape = await fetch(`${base}/metrics`, { headers: as(reviewer).headers() });
    const samples = parsePrometheusText(await scrape.text());
    expect(sampleValue(samples, 'agent_ledger_runs', { status: 'WAITING_FOR_APPROVAL' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'agent_ledger_runs', { status: 'WAITING_FOR_INPUT' })).toEqual(expect.any(Number));
    expect(sampleValue(samples, 'agent_ledger_approvals', { state: 'pending' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'agent_ledger_approvals', { state: 'cancelled' })).toBe(0);
  });

  it('refuses a decision without runs:approve (403), by a key limited to another agent (404), with a bad body (400 naming the field), on another round or as input (409): nothing is appended', async () => {
    const headBefore = await runsHead();
    const revisionBefore = (await runRow(approvedRun)).streamRevision;

    const noScope = await decide(approvedRun, { decision: 'approve' }, submitter);
    expect(noScope).toMatchObject({ status: 403, body: { code: 'SCOPE_MISSING', keyId: 'submitter', requiredScopes: ['runs:approve'] } });
    expect(await decide(approvedRun, { decision: 'approve' }, clockOnly)).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND', runId: approvedRun } });
    expect(await as(clockOnly).post<ApiErrorBody>(`/runs/${approvedRun}/input`, { input: 'x' })).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });

    const bodies: Array<[unknown, string, string]> = [
      [{ decision: 'maybe' }, 'decision', 'isIn'],
      [{}, 'decision', 'isIn'],
      [{ decision: 'approve', urgent: true }, 'urgent', 'unknownField'],
      [{ decision: 'approve', decidedBy: 'mallory' }, 'decidedBy', 'unknownField'],
      [{ decision: 'approve', round: 20 }, 'round', 'max'],
      [{ decision: 'approve', round: '1' }, 'round', 'isInt'],
      [{ decision: 'deny', reason: '' }, 'reason', 'isLength'],
      [{ decision: 'deny', reason: 'x'.repeat(501) }, 'reason', 'isLength'],
      ['["approve"]', 'body', 'isObject'],
      ['{"decision": ', 'body', 'json'],
    ];
    for (const [body, field, rule] of bodies) {
      const answer = await decide(approvedRun, body);
      const code = rule === 'json' ? 'MALFORMED_JSON' : 'INVALID_FIELD';
      expect({ body, status: answer.status, code: answer.body.code, field: answer.body.field, rule: answer.body.rule }).toEqual({ body, status: 400, code, field, rule });
    }

    expect(await decide(approvedRun, { decision: 'approve', round: 0 })).toMatchObject({
      status: 409,
      body: { code: 'APPROVAL_ROUND_MISMATCH', runId: approvedRun, field: 'round', round: 0, waitingRound: 1 },
    });
    expect(await as(reviewer).post<ApiErrorBody>(`/runs/${approvedRun}/input`, { input: 'not asked' })).toMatchObject({
      status: 409,
      body: { code: 'RUN_NOT_WAITING_FOR_INPUT', runId: approvedRun, status: 'WAITING_FOR_APPROVAL' },
    });
    expect(await decide('no-such-run', { decision: 'approve' })).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    expect(await decide('bad%20id', { decision: 'approve' })).toMatchObject({ status: 400, body: { field: 'runId' } });

    // Nothing was appended: not to the run, not to its audit trail; the run still waits.
    expect(await runsHead()).toBe(headBefore);
    expect(await runRow(approvedRun)).toMatchObject({ status: 'WAITING_FOR_APPROVAL', streamRevision: revisionBefore });
    expect((await approvalOf(approvedRun)).state).toBe('pending');
    expect(approverLog()).toBeNull();
  });

  it('approves (runs:approve): 200 { runId, status: QUEUED, run }, the key id decided; a worker completes the run, the line is appended once, and the audit review counts the approval', async () => {
    const answer = await decide(approvedRun, { decision: 'approve', round: 1, reason: 'looks right' });
    expectAnswer(answer, approvedRun, 'QUEUED');
    expect(answer.body.run).toMatchObject({ agent: 'approver', mode: 'queued', pendingApproval: null, pendingInput: null, reason: null, input: 'write the report and log it' });
    // A second decision: the run no longer waits (queued, running, or settled by now).
    const again = await decide(approvedRun, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(['RUN_NOT_WAITING_FOR_APPROVAL', 'RUN_ALREADY_SETTLED']).toContain(again.body.code);

    expect(await settled(approvedRun)).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED', nonIdempotentWriteSteps: 1, idempotentWriteSteps: 1 });
    expect(approverLog()).toBe('approved line\n');
    expect(await decide(approvedRun, { decision: 'approve' })).toMatchObject({ status: 409, body: { code: 'RUN_ALREADY_SETTLED', status: 'COMPLETED' } });

    const request = await approvalOf(approvedRun, 'approved');
    expect(request).toMatchObject({ decidedBy: 'key:reviewer', reason: 'looks right', decidedAt: expect.any(Number) as number });
    const steps = await eventually(async () => {
      const s = await as(reviewer).get<RunStepsAnswer>(`/runs/${approvedRun}/steps`);
      const append = s.body.steps.find((step) => step.toolName === 'files.append');
      return append?.status === 'completed' ? s.body.steps : undefined;
    }, 'the approved step in the steps read model');
    expect(steps.find((s) => s.toolName === 'files.append')).toMatchObject({ outcome: 'succeeded', approval: 'granted', starts: 1 });
    expect(steps.find((s) => s.toolName === 'files.write')).toMatchObject({ outcome: 'succeeded', approval: 'preApproved' });
    const review = await eventually(async () => {
      const r = await as(reviewer).get<AuditReviewReport>(`/audit/review?runId=${approvedRun}`);
      return r.status === 200 && r.body.totals.approvalsGranted === 1 && r.body.totals.writesAudited === 2 ? r.body : undefined;
    }, 'the approval in the audit review');
    expect(review.totals).toMatchObject({ approvalsGranted: 1, approvalsDenied: 0, writes: 2, writesExecuted: 2, writesWithoutAudit: 0 });
  });

  it('denies with onDenial endRun: 200 FAILED APPROVAL_DENIED, nothing appended; a second decision is 409 RUN_ALREADY_SETTLED', async () => {
    deniedRun = await queue(reviewer, 'approver', 'log it, if allowed');
    await rowWith(deniedRun, 'WAITING_FOR_APPROVAL');
    const answer = await decide(deniedRun, { decision: 'deny', reason: 'not today' });
    expectAnswer(answer, deniedRun, 'FAILED');
    expect(answer.body.run).toMatchObject({ reason: 'APPROVAL_DENIED', deadLettered: false, pendingApproval: null });
    expect(await decide(deniedRun, { decision: 'approve' })).toMatchObject({ status: 409, body: { code: 'RUN_ALREADY_SETTLED', status: 'FAILED', runId: deniedRun } });
    expect(await settled(deniedRun)).toMatchObject({ status: 'FAILED', reason: 'APPROVAL_DENIED', deadLettered: false, nonIdempotentWriteSteps: 0 });
    expect(approverLog()).toBe('approved line\n');
    expect(await approvalOf(deniedRun, 'denied')).toMatchObject({ decidedBy: 'key:reviewer', reason: 'not today' });
    const review = await eventually(async () => {
      const r = await as(reviewer).get<AuditReviewReport>(`/audit/review?runId=${deniedRun}`);
      return r.body.totals.approvalsDenied === 1 ? r.body : undefined;
    }, 'the denial in the audit review');
    expect(review.totals).toMatchObject({ approvalsGranted: 0, approvalsDenied: 1, writesExecuted: 1 });
  });

  it('denies with onDenial tellModel: the call never runs, the run view and the steps say denied, the model answers and the run completes', async () => {
    toldRun = await queue(reviewer, 'told', 'log a line');
    await rowWith(toldRun, 'WAITING_FOR_APPROVAL');
    const answer = await decide(toldRun, { decision: 'deny', round: 0 });
    expectAnswer(answer, toldRun, 'QUEUED');
    expect(answer.body.run.steps.find((s) => s.toolName === 'files.append')).toEqual({
      stepId: `${toldRun}/r0/t0`,
      kind: 'tool',
      round: 0,
      callIndex: 0,
      toolName: 'files.append',
      effect: 'NON_IDEMPOTENT_WRITE',
      status: 'completed',
      starts: 0,
      outcome: 'denied',
    });
    expect(await settled(toldRun)).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED' });
    expect(existsSync(join(service.workspaceDir, 'told.log'))).toBe(false);
    const steps = await eventually(async () => {
      const s = await as(reviewer).get<RunStepsAnswer>(`/runs/${toldRun}/steps`);
      return s.body.steps.length === 3 ? s.body.steps : undefined;
    }, 'the steps of the told run');
    expect(steps.find((s) => s.toolName === 'files.append')).toMatchObject({ status: 'completed', outcome: 'denied', approval: 'denied', starts: 0 });
    expect(await approvalOf(toldRun, 'denied')).toMatchObject({ onDenial: 'tellModel', decidedBy: 'key:reviewer', reason: null });
  });

  it('an interactive start answers 200 WAITING_FOR_APPROVAL with the pending call; after the approval a worker completes it', async () => {
    const started = await as(reviewer).post<StartRunInteractive>('/runs', { agent: 'approver', input: 'interactive, then approved', mode: 'interactive' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ mode: 'interactive', segment: 'waiting', run: { status: 'WAITING_FOR_APPROVAL', reason: null, mode: 'interactive' } });
    const runId = started.body.runId;
    expect(started.body.run.pendingApproval).toEqual({
      round: 1,
      onDenial: 'endRun',
      requestedAt: expect.any(Number) as number,
      calls: [{ stepId: `${runId}/r1/t0`, callIndex: 0, ...APPEND_CALL }],
    });
    expect(approverLog()).toBe('approved line\n');
    const answer = await decide(runId, { decision: 'approve', round: started.body.run.pendingApproval?.round });
    expectAnswer(answer, runId, 'QUEUED');
    expect(answer.body.run.mode).toBe('interactive');
    expect(await settled(runId)).toMatchObject({ status: 'COMPLETED', mode: 'interactive', attempts: 2 });
    expect(approverLog()).toBe('approved line\napproved line\n');
  });

  it("streams the run's events: ApprovalRequested, then ApprovalGranted live, then the write and the settlement", async () => {
    const runId = await queue(reviewer, 'approver', 'follow me');
    const stream = await openSse(`${base}/runs/${runId}/events`, as(reviewer).headers());
    try {
      const before = await stream.until((f) => f.event === 'ApprovalRequested');
      expect(before.map((f) => f.event)).not.toContain('ApprovalGranted');
      expect(before[before.length - 1]?.data.data).toMatchObject({ runId, round: 1, onDenial: 'endRun', calls: [APPEND_CALL] });
      await rowWith(runId, 'WAITING_FOR_APPROVAL');
      expectAnswer(await decide(runId, { decision: 'approve' }), runId, 'QUEUED');
      const live = await stream.until((f) => f.event === 'RunCompleted');
      expect(live[0]).toMatchObject({ event: 'ApprovalGranted', data: { data: { runId, round: 1, decidedBy: { kind: 'apiKey', id: 'reviewer' }, stepIds: [`${runId}/r1/t0`] } } });
      const types = live.map((f) => f.event);
      expect(types).toEqual(expect.arrayContaining(['RunClaimed', 'StepStarted', 'ToolExecuted', 'RunCompleted']));
      expect(types.indexOf('ApprovalGranted')).toBeLessThan(types.indexOf('ToolExecuted'));
      expect(live.find((f) => f.event === 'ToolExecuted')?.data.data).toMatchObject({ toolName: 'files.append', outcome: 'succeeded' });
    } finally {
      stream.close();
    }
    expect(approverLog()).toBe('approved line\napproved line\napproved line\n');
  });

  it('input: a run whose tool asks waits WAITING_FOR_INPUT; POST input (runs:submit, the key id submits) answers 200 QUEUED and the tool returns the answer', async () => {
    askerRun = await queue(submitter, 'asker', 'read a file');
    const row = await rowWith(askerRun, 'WAITING_FOR_INPUT');
    expect(row).toMatchObject({ inputStepId: `${askerRun}/r0/t0`, leaseOwner: null, approvalRound: null });
    expect(await decide(askerRun, { decision: 'approve' })).toMatchObject({ status: 409, body: { code: 'RUN_NOT_WAITING_FOR_APPROVAL', status: 'WAITING_FOR_INPUT' } });
    const headBefore = await runsHead();
    const refused: Array<[TestKey, unknown, number, string]> = [
      [submitter, {}, 400, 'INVALID_FIELD'],
      [submitter, { input: 'x', submittedBy: 'mallory' }, 400, 'INVALID_FIELD'],
      [approverReader, { input: 'x' }, 403, 'SCOPE_MISSING'],
      [clockOnly, { input: 'x' }, 404, 'RUN_NOT_FOUND'],
    ];
    for (const [key, body, status, code] of refused) {
      const answer = await as(key).post<ApiErrorBody>(`/runs/${askerRun}/input`, body);
      expect({ key: key.entry.id, body, status: answer.status, code: answer.body.code }).toEqual({ key: key.entry.id, body, status, code });
    }
    expect((await as(submitter).post<ApiErrorBody>(`/runs/${askerRun}/input`, {})).body).toMatchObject({ field: 'input', rule: 'isPresent' });
    expect(await runsHead()).toBe(headBefore);

    const answer = await as(submitter).post<RunResumeAnswer>(`/runs/${askerRun}/input`, { input: { file: 'notes.txt' } });
    expectAnswer(answer, askerRun, 'QUEUED');
    expect(answer.body.run).toMatchObject({ agent: 'asker', pendingInput: null, pendingApproval: null });
    expect(await settled(askerRun)).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED', inputStepId: null });
    expect(await as(submitter).post<ApiErrorBody>(`/runs/${askerRun}/input`, { input: 'again' })).toMatchObject({ status: 409, body: { code: 'RUN_ALREADY_SETTLED' } });

    const frames = await history(askerRun, (f) => f.event === 'RunCompleted');
    const types = frames.map((f) => f.event);
    expect(types.indexOf('InputRequested')).toBeLessThan(types.indexOf('InputSubmitted'));
    expect(frames.find((f) => f.event === 'InputRequested')?.data.data).toMatchObject({ toolName: 'user.ask', prompt: 'Which file should I read?' });
    expect(frames.find((f) => f.event === 'InputSubmitted')?.data.data).toMatchObject({ stepId: `${askerRun}/r0/t0`, input: { file: 'notes.txt' }, submittedBy: { kind: 'apiKey', id: 'submitter' } });
    expect(frames.find((f) => f.event === 'ToolExecuted')?.data.data).toMatchObject({
      toolName: 'user.ask',
      outcome: 'succeeded',
      result: { question: 'Which file should I read?', answer: { file: 'notes.txt' } },
    });
  });

  it('input may be null; a cancelled waiting run closes its request (cancelled)', async () => {
    const nullRun = await queue(submitter, 'asker', 'null answer');
    await rowWith(nullRun, 'WAITING_FOR_INPUT');
    expectAnswer(await as(submitter).post<RunResumeAnswer>(`/runs/${nullRun}/input`, { input: null }), nullRun, 'QUEUED');
    expect(await settled(nullRun)).toMatchObject({ status: 'COMPLETED' });

    const cancelledRun = await queue(reviewer, 'approver', 'cancelled while waiting');
    await rowWith(cancelledRun, 'WAITING_FOR_APPROVAL');
    expect(await as(reviewer).post(`/runs/${cancelledRun}/cancel`, { reason: 'nobody decided' })).toMatchObject({ status: 200, body: { run: { status: 'CANCELLED' } } });
    expect(await decide(cancelledRun, { decision: 'approve' })).toMatchObject({ status: 409, body: { code: 'RUN_ALREADY_SETTLED', status: 'CANCELLED' } });
    expect(await approvalOf(cancelledRun, 'cancelled')).toMatchObject({ decidedBy: 'key:reviewer' });
    expect(approverLog()).toBe('approved line\napproved line\napproved line\n');
  });

  it('GET /approvals: newest first, filters, cursor pages; a key limited to some agents sees only their requests', async () => {
    const all: ApprovalRow[] = [];
    let cursor: string | null = null;
    do {
      const page: JsonAnswer<ApprovalPage> = await as(reviewer).get<ApprovalPage>(`/approvals?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      expect(page.body.approvals.length).toBeLessThanOrEqual(2);
      all.push(...page.body.approvals);
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    // approver: approved, denied, interactive, streamed, cancelled; told: denied.
    expect(all).toHaveLength(6);
    expect(new Set(all.map((a) => a.approvalId)).size).toBe(6);
    const times = all.map((a) => a.requestedAt);
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(all.map((a) => a.state).sort()).toEqual(['approved', 'approved', 'approved', 'cancelled', 'denied', 'denied']);

    const list = async (key: TestKey, query: string): Promise<ApprovalRow[]> => {
      const answer = await as(key).get<ApprovalPage>(`/approvals${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 200 });
      return [...answer.body.approvals];
    };
    expect((await list(reviewer, '?state=denied')).map((a) => a.runId).sort()).toEqual([deniedRun, toldRun].sort());
    expect((await list(reviewer, '?agent=told')).map((a) => a.runId)).toEqual([toldRun]);
    expect((await list(reviewer, '?state=pending')).length).toBe(0);
    expect((await list(reviewer, `?runId=${approvedRun}`)).map((a) => a.approvalId)).toEqual([`${approvedRun}/r1`]);
    const oldest = Math.min(...times);
    expect((await list(reviewer, `?since=${oldest + 1}`)).length).toBe(5);
    expect((await list(reviewer, `?since=${encodeURIComponent(new Date(oldest).toISOString())}`)).length).toBe(6);
    expect((await list(reviewer, `?until=${oldest + 1}`)).map((a) => a.runId)).toEqual([approvedRun]);
    expect((await list(reviewer, `?since=${Date.now() + 3_600_000}`)).length).toBe(0);

    // A key limited to `approver` sees its requests only, in the same order; another agent's filter is empty; another agent's run is 404.
    expect((await list(approverReader, '')).map((a) => a.approvalId)).toEqual(all.filter((a) => a.agent === 'approver').map((a) => a.approvalId));
    expect(await as(approverReader).get<ApprovalPage>('/approvals?agent=told')).toMatchObject({ status: 200, body: { approvals: [], nextCursor: null } });
    expect(await as(approverReader).get<ApiErrorBody>(`/approvals?runId=${toldRun}`)).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    expect(await list(clockOnly, '')).toEqual([]);

    const bad: Array<[string, string]> = [
      ['?state=PENDING', 'state'],
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?since=yesterday', 'since'],
      ['?cursor=not-a-cursor', 'cursor'],
      ['?colour=red', 'colour'],
      ['?runId=..%2Fetc', 'runId'],
    ];
    for (const [query, field] of bad) {
      const answer = await as(reviewer).get<ApiErrorBody>(`/approvals${query}`);
      expect({ query, status: answer.status, field: answer.body.field }).toEqual({ query, status: 400, field });
    }
    // A cursor of GET /runs is not one of GET /approvals.
    const runsPage = await as(reviewer).get<{ nextCursor: string | null }>('/runs?limit=1');
    expect(await as(reviewer).get<ApiErrorBody>(`/approvals?cursor=${runsPage.body.nextCursor}`)).toMatchObject({ status: 400, body: { code: 'INVALID_QUERY', field: 'cursor' } });
    expect((await request(base, 'GET', '/approvals')).status).toBe(401);
  });
});
