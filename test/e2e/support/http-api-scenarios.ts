/**
 * The HTTP API's end-to-end scenarios, run against each store by
 * `test/e2e/http-api.e2e-spec.ts` (embedded SQLite) and
 * `test/e2e/http-api-esdb.e2e-spec.ts` (the EventStoreDB adapter on the
 * protocol-level server): the service is a child process driven over HTTP.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Position } from '@agent-ledger/event-store';
import { comparePositions } from '@agent-ledger/event-store';
import type { AuditReviewReport, RunPage, RunStatusRow } from '@agent-ledger/projections';
import type { ApiErrorBody } from '../../../libs/http/src/errors/api-error-body';
import type { ProjectionsAnswer } from '../../../libs/http/src/projections/read-models.controller';
import type { RunStepsAnswer } from '../../../libs/http/src/runs/runs.controller';
import type { RunView } from '../../../libs/http/src/runs/run-view';
import type { ReadinessReport } from '../../../libs/http/src/health/readiness.service';
import type { HoldingModelServer, HttpService, SseFrame } from './http-service';
import { eventually, openSse, request, settledRun, startHoldingModelServer, startHttpService, testAgentsYaml } from './http-service';
import { scaled } from '../../support/time-scale';

/** Where the service keeps its events. */
export interface Backend {
  readonly env: Readonly<Record<string, string>>;
  cleanup(): Promise<void>;
}

interface QueuedAnswer {
  readonly runId: string;
  readonly mode: 'queued';
  readonly status: string;
  readonly replayed: boolean;
}

interface InteractiveAnswer {
  readonly runId: string;
  readonly mode: 'interactive';
  readonly replayed: boolean;
  readonly segment: string | null;
  readonly run: RunView;
}

interface CancelAnswer {
  readonly runId: string;
  readonly cancelRequested: boolean;
  readonly run: RunView;
}

const TERMINAL = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);

/** Defines the scenarios against the store `backend()` prepares. */
export function describeHttpApi(storeName: string, backend: () => Promise<Backend>): void {
  describe(`the HTTP API on ${storeName} (e2e)`, () => {
    jest.setTimeout(scaled(30_000));
    let model: HoldingModelServer;
    let store: Backend;
    let service: HttpService;
    let base: string;

    const post = <T>(path: string, body?: unknown, headers?: Record<string, string>) => request<T>(base, 'POST', path, body, headers);
    const get = <T>(path: string) => request<T>(base, 'GET', path);
    const runsHead = async (): Promise<string | null> => {
      const answer = await get<ProjectionsAnswer>('/projections');
      return answer.body.projections.find((p) => p.source === 'runs')?.headPosition ?? null;
    };
    const allRuns = async (query = ''): Promise<RunStatusRow[]> => {
      const runs: RunStatusRow[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: RunPage } = await get<RunPage>(`/runs?limit=3${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
        expect(page.status).toBe(200);
        runs.push(...page.body.runs);
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      return runs;
    };

    beforeAll(async () => {
      model = await startHoldingModelServer();
      store = await backend();
      service = await startHttpService({ agentsYaml: testAgentsYaml(model.baseUrl), env: { ...store.env, WORKER_CONCURRENCY: '2', SSE_HEARTBEAT_MS: '200' } });
      base = service.baseUrl;
    }, scaled(90_000));

    afterAll(async () => {
      await service?.stop();
      await model?.close();
      await store?.cleanup();
    }, scaled(30_000));

    it('answers /health, then /ready once the store answers and the projections are caught up, and shows each projection with its lag', async () => {
      expect(await get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const ready = await eventually(async () => {
        const answer = await get<ReadinessReport>('/ready');
        return answer.status === 200 ? answer.body : undefined;
      }, '/ready');
      expect(ready).toMatchObject({ status: 'ok', stores: { runs: { ok: true } }, info: { 'store:runs': { status: 'up' } }, error: {} });
      const projections = await get<ProjectionsAnswer>('/projections');
      expect(projections.status).toBe(200);
      expect(projections.body.projections.map((p) => p.projection).sort()).toEqual(['approvals', 'auditReview', 'runStatus', 'steps']);
      for (const p of projections.body.projections) expect(p.lag).toEqual({ events: 0, atLeast: false });
      expect(projections.body.runners.runs).toMatchObject({ running: true });
    });

    it('refuses bad input with a 4xx that names the field and the rule, and appends nothing', async () => {
      const headBefore = await runsHead();
      const runsBefore = (await allRuns()).length;
      const cases: Array<[string, unknown, number, string, string]> = [
        ['an unknown field', { agent: 'clock', input: 'x', priority: 'high' }, 400, 'priority', 'unknownField'],
        ['a wrong type', { agent: 5, input: 'x' }, 400, 'agent', 'isString'],
        ['a missing agent', { input: 'x' }, 400, 'agent', 'isString'],
        ['a missing input', { agent: 'clock' }, 400, 'input', 'isPresent'],
        ['an unknown agent', { agent: 'nobody', input: 'x' }, 400, 'agent', 'invalid'],
        ['a bad mode', { agent: 'clock', input: 'x', mode: 'later' }, 400, 'mode', 'isIn'],
        ['a bad run id', { agent: 'clock', input: 'x', runId: '../etc' }, 400, 'runId', 'matches'],
        ['a run id with an idempotency key', { agent: 'clock', input: 'x', runId: 'r1', idempotencyKey: 'k' }, 400, 'idempotencyKey', 'invalid'],
        ['a body that is not an object', '[1, 2]', 400, 'body', 'isObject'],
        ['malformed JSON', '{"agent": ', 400, 'body', 'json'],
        ['a body over the limit', { agent: 'clock', input: 'x'.repeat(300_000) }, 413, 'body', 'maxBytes'],
      ];
      for (const [what, body, status, field, rule] of cases) {
        const answer = await post<ApiErrorBody>('/runs', body);
        expect({ what, status: answer.status, field: answer.body.field, rule: answer.body.rule }).toEqual({ what, status, field, rule });
        expect(typeof answer.body.code).toBe('string');
        expect(answer.body.message).not.toMatch(/\n\s+at /); // no stack trace
      }
      const typeError = await post<ApiErrorBody>('/runs', { agent: 5, input: 'x' });
      expect(typeError.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'INVALID_FIELD', message: 'agent must be a string' });
      const queries: Array<[string, string]> = [
        ['/runs?limit=0', 'limit'],
        ['/runs?status=SLEEPING', 'status'],
        ['/runs?since=yesterday', 'since'],
        ['/runs?colour=red', 'colour'],
        ['/runs?cursor=not-a-cursor', 'cursor'],
        ['/audit/review?limit=-1', 'limit'],
        ['/runs/bad%20id', 'runId'],
        ['/events?after=x', 'after'],
      ];
      for (const [path, field] of queries) {
        const answer = await get<ApiErrorBody>(path);
        expect({ path, status: answer.status, field: answer.body.field }).toEqual({ path, status: 400, field });
      }
      expect(await get<ApiErrorBody>('/runs/no-such-run')).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND', runId: 'no-such-run' } });
      expect(await get<ApiErrorBody>('/nowhere')).toMatchObject({ status: 404, body: { code: 'ROUTE_NOT_FOUND' } });
      // Nothing was appended: the store's head did not move, and the read model has the same runs.
      expect(await runsHead()).toBe(headBefore);
      expect((await allRuns()).length).toBe(runsBefore);
    });

    it('starts an interactive run: the answer carries the settled run, and the read model and its steps follow', async () => {
      const answer = await post<InteractiveAnswer>('/runs', { agent: 'clock', input: 'what time is it?', mode: 'interactive' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('location')).toBe(`/runs/${answer.body.runId}`);
      expect(answer.body).toMatchObject({ mode: 'interactive', replayed: false, segment: 'settled', run: { status: 'COMPLETED', reason: 'COMPLETED', answer: 'tick', agent: 'clock' } });
      const row = await settledRun(base, answer.body.runId);
      expect(row).toMatchObject({ runId: answer.body.runId, agent: 'clock', mode: 'interactive', status: 'COMPLETED', reason: 'COMPLETED', stepsTotal: 3, readOnlySteps: 1, llmSteps: 2 });
      const steps = await eventually(async () => {
        const s = await get<RunStepsAnswer>(`/runs/${answer.body.runId}/steps`);
        return s.body.steps.length === 3 && s.body.steps.every((step) => step.status === 'completed') ? s.body.steps : undefined;
      }, 'the steps');
      expect(steps.map((s) => [s.kind, s.toolName, s.effect])).toEqual([
        ['llm', null, null],
        ['tool', 'clock.now', 'READ_ONLY'],
        ['llm', null, null],
      ]);
      expect(await get<ApiErrorBody>('/runs/no-such-run/steps')).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    });

    it('starts a queued run: 202 with its id; a worker executes it; the audit review shows its writes audited', async () => {
      const answer = await post<QueuedAnswer>('/runs', { agent: 'writer', input: { task: 'write the report' } });
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ mode: 'queued', status: 'QUEUED', replayed: false });
      expect(answer.headers.get('location')).toBe(`/runs/${answer.body.runId}`);
      const row = await settledRun(base, answer.body.runId);
      expect(row).toMatchObject({ status: 'COMPLETED', mode: 'queued', idempotentWriteSteps: 1, nonIdempotentWriteSteps: 1 });
      expect(readFileSync(join(service.workspaceDir, 'report.txt'), 'utf8')).toBe('report');
      const review = await eventually(async () => {
        const r = await get<AuditReviewReport>(`/audit/review?runId=${answer.body.runId}`);
        return r.status === 200 && r.body.totals.writesAudited === 2 ? r.body : undefined;
      }, 'the audit review');
      expect(review.totals).toMatchObject({ writes: 2, writesExecuted: 2, writesAudited: 2, writesWithoutAudit: 0, gapsDetected: 0, runsFailedClosed: 0 });
      expect(review.writes.map((w) => [w.toolName, w.effect, w.audited]).sort()).toEqual([
        ['files.append', 'NON_IDEMPOTENT_WRITE', true],
        ['files.write', 'IDEMPOTENT_WRITE', true],
      ]);
      const all = await get<AuditReviewReport>('/audit/review');
      expect(all.body.totals.writes).toBeGreaterThanOrEqual(2);
    });

    it('an idempotency key makes POST /runs safe to repeat: the same run, the side effects once', async () => {
      const log = () => readFileSync(join(service.workspaceDir, 'idem.log'), 'utf8');
      const first = await post<InteractiveAnswer>('/runs', { agent: 'idem-writer', input: 'log it', mode: 'interactive', idempotencyKey: 'order-1' });
      const again = await post<InteractiveAnswer>('/runs', { agent: 'idem-writer', input: 'log it', mode: 'interactive', idempotencyKey: 'order-1' });
      expect(first).toMatchObject({ status: 200, body: { replayed: false, run: { status: 'COMPLETED' } } });
      expect(again).toMatchObject({ status: 200, body: { runId: first.body.runId, replayed: true, segment: null, run: { status: 'COMPLETED', answer: 'logged' } } });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.body.runId).toMatch(/^ik-[0-9a-f]{32}$/);
      expect(log()).toBe('once\n');

      // Queued, and the two requests race.
      const [a, b] = await Promise.all([
        post<QueuedAnswer>('/runs', { agent: 'idem-writer', input: 'log it', idempotencyKey: 'order-2' }),
        post<QueuedAnswer>('/runs', { agent: 'idem-writer', input: 'log it', idempotencyKey: 'order-2' }),
      ]);
      expect([a.status, b.status]).toEqual([202, 202]);
      expect(a.body.runId).toBe(b.body.runId);
      expect([a.body.replayed, b.body.replayed].sort()).toEqual([false, true]);
      await settledRun(base, a.body.runId);
      const third = await post<QueuedAnswer>('/runs', { agent: 'idem-writer', input: 'log it', idempotencyKey: 'order-2' });
      expect(third).toMatchObject({ status: 202, body: { runId: a.body.runId, replayed: true, status: 'COMPLETED' } });
      expect(log()).toBe('once\nonce\n');
      expect((await allRuns('&agent=idem-writer')).length).toBe(2);

      // The same key with another request is refused; nothing is started.
      expect(await post<ApiErrorBody>('/runs', { agent: 'idem-writer', input: 'something else', idempotencyKey: 'order-2' })).toMatchObject({
        status: 409,
        body: { code: 'IDEMPOTENCY_KEY_REUSED', field: 'idempotencyKey', differs: 'input', runId: a.body.runId },
      });
      expect(await post<ApiErrorBody>('/runs', { agent: 'idem-writer', input: 'log it', mode: 'interactive', idempotencyKey: 'order-2' })).toMatchObject({
        status: 409,
        body: { code: 'IDEMPOTENCY_KEY_REUSED', differs: 'mode' },
      });
      // An explicit run id is not a replay: its second use is a conflict.
      expect((await post('/runs', { agent: 'clock', input: 'x', runId: 'explicit-1' })).status).toBe(202);
      expect(await post<ApiErrorBody>('/runs', { agent: 'clock', input: 'x', runId: 'explicit-1' })).toMatchObject({
        status: 409,
        body: { code: 'RUN_ALREADY_EXISTS', field: 'runId' },
      });
      expect(log()).toBe('once\nonce\n');
    });

    it('lists runs with filters (status, reason, agent, time) and cursor pagination', async () => {
      const startedAt = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await post<QueuedAnswer>('/runs', { agent: 'clock', input: `list ${i}` })).body.runId);
      for (const id of ids) await settledRun(base, id);
      const clockRuns = await allRuns('&agent=clock');
      const listed = clockRuns.map((r) => r.runId);
      expect(new Set(listed).size).toBe(listed.length); // no duplicate across pages
      expect(listed).toEqual(expect.arrayContaining(ids));
      expect(clockRuns.every((r) => r.agent === 'clock')).toBe(true);
      const times = clockRuns.map((r) => r.requestedAt);
      expect(times).toEqual([...times].sort((x, y) => y - x)); // newest first
      const since = await allRuns(`&agent=clock&since=${startedAt}`);
      expect(since.map((r) => r.runId).sort()).toEqual([...ids].sort());
      const sinceIso = await allRuns(`&agent=clock&since=${encodeURIComponent(new Date(startedAt).toISOString())}`);
      expect(sinceIso.length).toBe(5);
      expect((await allRuns(`&agent=clock&until=${startedAt}`)).every((r) => !ids.includes(r.runId))).toBe(true);
      expect((await allRuns(`&agent=clock&status=COMPLETED&since=${startedAt}`)).length).toBe(5);
      expect((await allRuns(`&agent=clock&reason=COMPLETED&since=${startedAt}`)).length).toBe(5);
      expect((await allRuns('&agent=clock&status=CANCELLED')).length).toBe(0);
      expect((await allRuns(`&since=${Date.now() + 3_600_000}`)).length).toBe(0);
    });

    it('cancels a queued run at once (200) and a running one at its next step boundary (202); live events arrive on its stream', async () => {
      const receivedBefore = model.received();
      // Two held runs occupy both workers (their model calls never answer); a third run stays queued.
      const held = [
        (await post<QueuedAnswer>('/runs', { agent: 'held', input: 'wait 1' })).body.runId,
        (await post<QueuedAnswer>('/runs', { agent: 'held', input: 'wait 2' })).body.runId,
      ];
      await eventually(async () => (model.received() >= receivedBefore + 2 ? true : undefined), 'both held model calls');
      const queued = (await post<QueuedAnswer>('/runs', { agent: 'clock', input: 'behind the held ones' })).body.runId;
      const cancelQueued = await post<CancelAnswer>(`/runs/${queued}/cancel`, { reason: 'not needed' });
      expect(cancelQueued).toMatchObject({ status: 200, body: { cancelRequested: true, run: { status: 'CANCELLED', reason: 'CANCELLED', cancelRequestedBy: 'development' } } });

      const target = held[0] as string;
      const stream = await openSse(`${base}/runs/${target}/events`);
      const history = await stream.until((f) => f.event === 'StepStarted');
      expect(history.map((f) => f.event)).toEqual(['RunRequested', 'RunClaimed', 'StepStarted']);
      const cancel = await post<CancelAnswer>(`/runs/${target}/cancel`, { reason: 'e2e' });
      expect(cancel).toMatchObject({ status: 202, body: { cancelRequested: true, run: { status: 'RUNNING', cancelRequestedBy: 'development' } } });
      const live = await stream.until((f) => TERMINAL.has(f.event ?? ''));
      stream.close();
      expect(live.map((f) => f.event)).toEqual(['CancelRequested', 'RunCancelled']);
      expect(await settledRun(base, target)).toMatchObject({ status: 'CANCELLED', reason: 'CANCELLED', cancelRequested: true, cancelRequestedBy: 'development' });
      await eventually(async () => (model.aborted() >= 1 ? true : undefined), 'the model call to be aborted');

      expect(await post<ApiErrorBody>(`/runs/${target}/cancel`)).toMatchObject({ status: 409, body: { code: 'RUN_ALREADY_SETTLED', status: 'CANCELLED' } });
      expect(await post<ApiErrorBody>('/runs/no-such-run/cancel')).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
      expect(await post<ApiErrorBody>(`/runs/${held[1]}/cancel`, { force: true })).toMatchObject({ status: 400, body: { field: 'force', rule: 'unknownField' } });
      expect((await post<CancelAnswer>(`/runs/${held[1]}/cancel`)).status).toBe(202);
      await settledRun(base, held[1] as string);
    });

    it("streams one run's events (ids are positions), and Last-Event-ID or ?after= resumes right after that event", async () => {
      const runId = (await post<QueuedAnswer>('/runs', { agent: 'clock', input: 'stream me' })).body.runId;
      const first = await openSse(`${base}/runs/${runId}/events`);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(first.headers.get('cache-control')).toMatch(/no-cache/);
      const frames = await first.until((f) => f.event === 'RunCompleted');
      first.close();
      expect(frames.map((f) => f.data.revision)).toEqual(frames.map((_, i) => i));
      for (const f of frames) {
        expect(f.id).toBe(f.data.position);
        expect(f.event).toBe(f.data.type);
        expect(f.data.streamName).toBe(`run-${runId}`);
      }
      expect(frames[0]?.event).toBe('RunRequested');
      const ids = frames.map((f) => f.id);

      const resumed = await openSse(`${base}/runs/${runId}/events`, { 'Last-Event-ID': ids[2] as string });
      const rest = await resumed.until((f) => f.event === 'RunCompleted');
      resumed.close();
      expect(rest.map((f) => f.id)).toEqual(ids.slice(3));

      const after = await openSse(`${base}/runs/${runId}/events?after=${ids[4]}`);
      expect((await after.until((f) => f.event === 'RunCompleted')).map((f) => f.id)).toEqual(ids.slice(5));
      after.close();

      expect(await get<ApiErrorBody>('/runs/no-such-run/events')).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
      const badId = await request<ApiErrorBody>(base, 'GET', `/runs/${runId}/events`, undefined, { 'Last-Event-ID': 'yesterday' });
      expect(badId).toMatchObject({ status: 400, body: { field: 'Last-Event-ID' } });
    });

    it("streams every run's events; a reconnect with Last-Event-ID while events keep arriving loses and duplicates nothing", async () => {
      const runIds = Array.from({ length: 8 }, (_, i) => `sse-all-${i}`);
      const session1 = await openSse(`${base}/events`);
      let producing = true;
      const producer = (async () => {
        for (const runId of runIds) {
          await post('/runs', { agent: 'clock', input: 'keep them coming', runId });
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
        producing = false;
      })();
      const part1 = await session1.until((f) => f.data.streamName === 'run-sse-all-2');
      session1.close();
      expect(producing).toBe(true); // the reconnect happens while events keep arriving
      const lastSeen = part1[part1.length - 1]?.id as string;

      const session2 = await openSse(`${base}/events`, { 'Last-Event-ID': lastSeen });
      const completed = new Set<string>();
      const noteCompletion = (f: SseFrame) => {
        if (f.event === 'RunCompleted' && runIds.includes(f.data.streamName.slice('run-'.length))) completed.add(f.data.streamName);
      };
      part1.forEach(noteCompletion);
      const part2 = await session2.until((f) => {
        noteCompletion(f);
        return completed.size === runIds.length;
      });
      await producer;
      // Idle now: heartbeats keep the connection alive.
      await expect(session2.next(700)).rejects.toThrow(/Timed out/);
      expect(session2.comments()).toContain('heartbeat');
      session2.close();

      const end = part2[part2.length - 1]?.id as string;
      const session3 = await openSse(`${base}/events`);
      const whole = await session3.until((f) => f.id === end);
      session3.close();
      const joined = [...part1, ...part2].map((f: SseFrame) => f.id);
      expect(joined).toEqual(whole.map((f) => f.id));
      expect(new Set(joined).size).toBe(joined.length);
      for (let i = 1; i < joined.length; i += 1) expect(comparePositions(joined[i] as Position, joined[i - 1] as Position)).toBeGreaterThan(0);
      expect(whole.every((f) => f.data.streamName.startsWith('run-'))).toBe(true);
    });

    it('?from=now streams only the events recorded after the request (no history); Last-Event-ID and after win over it', async () => {
      const live = await openSse(`${base}/events?from=now`);
      await post('/runs', { agent: 'clock', input: 'only the new', runId: 'sse-now' });
      const frames = await live.until((f) => f.data.streamName === 'run-sse-now' && f.event === 'RunCompleted');
      live.close();
      // Nothing of the runs settled before the request (the earlier tests' runs): history is skipped.
      expect(frames.filter((f) => f.data.streamName !== 'run-sse-now')).toEqual([]);
      expect(frames[0]).toMatchObject({ event: 'RunRequested', data: { revision: 0 } });

      const quiet = await openSse(`${base}/runs/sse-now/events?from=now`);
      await expect(quiet.next(500)).rejects.toThrow(/Timed out/);
      quiet.close();
      const resumed = await openSse(`${base}/runs/sse-now/events?from=now`, { 'Last-Event-ID': frames[0]!.id as string });
      expect((await resumed.next()).id).toBe(frames[1]!.id);
      resumed.close();
      expect(await get<ApiErrorBody>('/events?from=yesterday')).toMatchObject({ status: 400, body: { field: 'from' } });
    });

    it('stops cleanly on SIGTERM with an event stream open', async () => {
      const open = await openSse(`${base}/events`);
      await open.next();
      expect(await service.stop()).toBe(0);
      await expect(open.until(() => false, 5000)).rejects.toThrow();
      open.close();
    });
  });
}
