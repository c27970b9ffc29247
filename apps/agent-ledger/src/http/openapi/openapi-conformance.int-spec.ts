/**
 * The OpenAPI document against the service's real answers: every operation
 * of `GET /openapi.json` is driven on the real service (in this process,
 * embedded stores on disk, API keys), for its success and its error
 * statuses, and each answer is checked against what the document declares
 * for that operation and status: the status is declared, the Content-Type is
 * the declared one, and the body matches the declared schema (`$ref`s
 * resolved; the components closed, so that a field the document does not
 * list fails too, except the error body, open by design). The answers of a
 * failing store (503) are provoked by making the real store fail where the
 * test says. Last, every operation was exercised and every declared status
 * answered.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunDecider } from '@agent-ledger/domain';
import { RunHistory } from '@agent-ledger/domain/testing';
import { StoreFullError, StoreUnavailableError } from '@agent-ledger/event-store';
import { ProjectionRebuilder, ProjectionStore, ProjectionStoreClosedError } from '@agent-ledger/projections';
import { decisionHistories, seedRun } from '@agent-ledger/runtime/testing';
import { scaled } from '../../../../../test/support/time-scale';
import type { HttpTestApp, HttpTestKey } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import type { CheckedDocument, RealAnswer } from '../testing/openapi-answer-checker';
import { OpenApiAnswerChecker } from '../testing/openapi-answer-checker';
import { API_TEST_AGENTS_YAML as AGENTS_YAML } from '../testing/api-test-agents';


/** The body limit of the service under test: a larger body is refused with 413. */
const BODY_LIMIT = 4096;


/** One request to an operation of the document. */
interface Exchange {
  readonly method: 'GET' | 'POST';
  /** The document's path template (`/runs/{runId}`). */
  readonly path: string;
  readonly runId?: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly key?: HttpTestKey | null;
  /** A JSON body; a string is sent as it is. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
}

describe('the OpenAPI document against every route’s real answers', () => {
  jest.setTimeout(scaled(30_000));
  const admin = httpTestKey('admin', ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read']);
  const reader = httpTestKey('reader', ['runs:read']);
  const clockOnly = httpTestKey('clock-only', ['runs:submit', 'runs:read'], ['clock']);
  const clockAuditor = httpTestKey('clock-auditor', ['audit:read'], ['clock']);
  const notAKey = { key: 'not-a-key', entry: { id: 'none', hash: 'none', scopes: [] } } satisfies HttpTestKey;
  let folder: string;
  let app: HttpTestApp;
  let checker: OpenApiAnswerChecker;
  /** A completed run of each of `clock` and `writer`. */
  let clockRun: string;
  let writerRun: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-ledger-openapi-conformance-'));
    const agentsPath = join(folder, 'agents.yaml');
    writeFileSync(agentsPath, AGENTS_YAML);
    app = await startHttpTestApp({ keys: [admin, reader, clockOnly, clockAuditor], env: { AGENTS_CONFIG: agentsPath, HTTP_BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    const document = await app.call('GET', '/openapi.json', { key: admin });
    checker = new OpenApiAnswerChecker(document.body as CheckedDocument, ['ApiErrorBody']);
    clockRun = await interactiveRun('clock');
    writerRun = await interactiveRun('writer');
  });

  afterAll(async () => {
    await app?.close();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  /** Sends `exchange` (with node:http: a GET may carry a body), reads the answer (an event stream until `streamUntil` is in it). */
  function send(exchange: Exchange, streamUntil?: string): Promise<RealAnswer> {
    const url = new URL(app.baseUrl);
    const query = new URLSearchParams(exchange.query ?? {}).toString();
    const path = exchange.path.replace('{runId}', encodeURIComponent(exchange.runId ?? '')) + (query === '' ? '' : `?${query}`);
    const key = exchange.key === undefined ? admin : exchange.key;
    const body = exchange.body === undefined ? undefined : typeof exchange.body === 'string' ? exchange.body : JSON.stringify(exchange.body);
    const headers: Record<string, string> = {
      ...(key === null ? {} : { authorization: `Bearer ${key.key}` }),
      ...(exchange.accept === undefined ? {} : { accept: exchange.accept }),
      ...(body === undefined ? {} : { 'content-type': exchange.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
    };
    return new Promise<RealAnswer>((resolve, reject) => {
      const outgoing = request({ host: url.hostname, port: url.port, method: exchange.method, path, headers }, (incoming) => {
        const contentType = incoming.headers['content-type'] ?? '';
        let text = '';
        incoming.setEncoding('utf8');
        const done = () => resolve({ status: incoming.statusCode ?? 0, contentType, text });
        incoming.on('data', (chunk: string) => {
          text += chunk;
          if (streamUntil !== undefined && contentType.startsWith('text/event-stream') && text.includes(streamUntil) && /\n\n/.test(text.slice(text.indexOf(streamUntil)))) {
            incoming.destroy();
            done();
          }
        });
        incoming.on('end', done);
        incoming.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** Sends `exchange`, checks the answer against the document, and expects `status`. */
  async function expectAnswer(exchange: Exchange, status: number, streamUntil?: string): Promise<unknown> {
    const answer = await send(exchange, streamUntil);
    const problems = checker.check(exchange.method, exchange.path, answer);
    expect({ route: `${exchange.method} ${exchange.path}`, status: answer.status, problems }).toEqual({ route: `${exchange.method} ${exchange.path}`, status, problems: [] });
    return answer.contentType.startsWith('application/json') ? (JSON.parse(answer.text) as unknown) : answer.text;
  }

  async function interactiveRun(agent: string): Promise<string> {
    const runId = `${agent}-${randomUUID()}`;
    const answer = await app.call('POST', '/runs', { key: admin, body: { agent, input: 'go', mode: 'interactive', runId } });
    expect({ agent, status: answer.status }).toEqual({ agent, status: 200 });
    // The read models follow the store a little behind.
    const deadline = Date.now() + scaled(10_000);
    while ((await app.call('GET', `/runs/${runId}`, { key: admin })).status !== 200) {
      if (Date.now() > deadline) throw new Error(`The run ${runId} never reached the read model`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return runId;
  }

  /** A run claimed by a worker that is not running here: it stays RUNNING. */
  async function runningRun(): Promise<string> {
    const runId = `running-${randomUUID()}`;
    const history = new RunHistory(createRunDecider(), runId).send({ type: 'RequestRun', data: { runId, agent: 'clock', input: 'go', mode: 'queued', requestedBy: { kind: 'bus', id: 'test' } }, metadata: { now: Date.now() } }).claim('worker:elsewhere:1', Date.now());
    await seedRun(app.stores.runStore, runId, history.events);
    return runId;
  }

  const missing = () => `missing-${randomUUID()}`;
  const tooLarge = () => ({ agent: 'clock', input: 'x'.repeat(BODY_LIMIT + 1) });

  it('the service routes: /health, /ready, /me, /openapi.json, /metrics, /agents', async () => {
    await expectAnswer({ method: 'GET', path: '/health', key: null }, 200);
    await expectAnswer({ method: 'GET', path: '/ready', key: null }, 200);
    await expectAnswer({ method: 'GET', path: '/me' }, 200);
    await expectAnswer({ method: 'GET', path: '/me', key: clockOnly }, 200);
    await expectAnswer({ method: 'GET', path: '/me', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/me', key: notAKey }, 401);
    await expectAnswer({ method: 'GET', path: '/openapi.json' }, 200);
    await expectAnswer({ method: 'GET', path: '/openapi.json', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/metrics' }, 200);
    await expectAnswer({ method: 'GET', path: '/metrics', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/metrics', key: reader }, 403);
    await expectAnswer({ method: 'GET', path: '/agents' }, 200);
    await expectAnswer({ method: 'GET', path: '/agents', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/agents', key: clockAuditor }, 403);
  });

  it('POST /mcp: a JSON-RPC answer, 401 without a key, 406 to a client that does not accept what MCP asks', async () => {
    const accept = 'application/json, text/event-stream';
    const listed = (await expectAnswer({ method: 'POST', path: '/mcp', accept, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }, 200)) as { result: { tools: unknown[] } };
    expect(listed.result.tools.length).toBe(8);
    await expectAnswer({ method: 'POST', path: '/mcp', accept, key: null, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }, 401);
    await expectAnswer({ method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }, 406);
  });

  it('POST /runs: queued, interactive (settled, waiting for approval, waiting for input), a replay, and its errors', async () => {
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'clock', input: 'go' } }, 202);
    const idempotencyKey = `key-${randomUUID()}`;
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'clock', input: { any: ['json', 1, null] }, idempotencyKey } }, 202);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'clock', input: { any: ['json', 1, null] }, idempotencyKey } }, 202);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'writer', input: 'go', mode: 'interactive' } }, 200);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'approver', input: 'go', mode: 'interactive' } }, 200);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'asker', input: 'go', mode: 'interactive' } }, 200);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'nobody', input: 'go' } }, 400);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'clock', input: 'go', mode: 'sometimes', extra: 1 } }, 400);
    await expectAnswer({ method: 'POST', path: '/runs', body: '{"agent":' }, 400);
    await expectAnswer({ method: 'POST', path: '/runs', key: null, body: { agent: 'clock', input: 'go' } }, 401);
    await expectAnswer({ method: 'POST', path: '/runs', key: reader, body: { agent: 'clock', input: 'go' } }, 403);
    await expectAnswer({ method: 'POST', path: '/runs', key: clockOnly, body: { agent: 'writer', input: 'go' } }, 403);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'clock', input: 'go', runId: clockRun } }, 409);
    await expectAnswer({ method: 'POST', path: '/runs', body: { agent: 'clock', input: 'other', idempotencyKey } }, 409);
    await expectAnswer({ method: 'POST', path: '/runs', body: tooLarge() }, 413);
  });

  it('reading runs: GET /runs, /runs/{runId}, /runs/{runId}/steps', async () => {
    const page = (await expectAnswer({ method: 'GET', path: '/runs', query: { limit: '1' } }, 200)) as { nextCursor: string | null };
    expect(page.nextCursor).not.toBeNull();
    await expectAnswer({ method: 'GET', path: '/runs', query: { cursor: page.nextCursor ?? '', status: 'COMPLETED', agent: 'clock', since: '2020-01-01T00:00:00Z' } }, 200);
    await expectAnswer({ method: 'GET', path: '/runs', key: clockOnly }, 200);
    await expectAnswer({ method: 'GET', path: '/runs', query: { limit: '5000' } }, 400);
    await expectAnswer({ method: 'GET', path: '/runs', query: { cursor: 'not-a-cursor' } }, 400);
    await expectAnswer({ method: 'GET', path: '/runs', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/runs', key: clockAuditor }, 403);
    for (const path of ['/runs/{runId}', '/runs/{runId}/steps']) {
      await expectAnswer({ method: 'GET', path, runId: clockRun }, 200);
      await expectAnswer({ method: 'GET', path, runId: writerRun }, 200);
      await expectAnswer({ method: 'GET', path, runId: 'bad!id' }, 400);
      await expectAnswer({ method: 'GET', path, runId: clockRun, key: null }, 401);
      await expectAnswer({ method: 'GET', path, runId: clockRun, key: clockAuditor }, 403);
      await expectAnswer({ method: 'GET', path, runId: missing() }, 404);
      await expectAnswer({ method: 'GET', path, runId: writerRun, key: clockOnly }, 404);
    }
  });

  it('a person in the loop: POST /runs/{runId}/approval, /input, GET /approvals', async () => {
    const approve = (runId: string, body: unknown = { decision: 'approve', reason: 'fine', round: 0 }, key?: HttpTestKey | null): Exchange => ({ method: 'POST', path: '/runs/{runId}/approval', runId, body, ...(key === undefined ? {} : { key }) });
    const waitingForApproval = `approval-${randomUUID()}`;
    await seedRun(app.stores.runStore, waitingForApproval, decisionHistories.waitingForApproval(waitingForApproval, 'approver'));
    await expectAnswer({ method: 'GET', path: '/approvals', query: { state: 'pending' } }, 200);
    await expectAnswer({ method: 'GET', path: '/approvals', query: { runId: waitingForApproval, limit: '1', since: String(Date.now() - 3_600_000) } }, 200);
    await expectAnswer({ method: 'GET', path: '/approvals', query: { state: 'bogus' } }, 400);
    await expectAnswer({ method: 'GET', path: '/approvals', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/approvals', key: clockAuditor }, 403);
    await expectAnswer({ method: 'GET', path: '/approvals', key: clockOnly, query: { runId: waitingForApproval } }, 404);
    await expectAnswer(approve(waitingForApproval, { decision: 'maybe' }), 400);
    await expectAnswer(approve(waitingForApproval, undefined, null), 401);
    await expectAnswer(approve(waitingForApproval, undefined, reader), 403);
    await expectAnswer(approve(missing()), 404);
    await expectAnswer(approve(waitingForApproval, { decision: 'approve', round: 3 }), 409);
    await expectAnswer(approve(waitingForApproval, { decision: 'approve', reason: 'x'.repeat(BODY_LIMIT) }), 413);
    await expectAnswer(approve(waitingForApproval), 200);
    await expectAnswer({ method: 'GET', path: '/approvals', query: { runId: waitingForApproval } }, 200);
    await expectAnswer(approve(waitingForApproval), 409);
    const denied = `denied-${randomUUID()}`;
    await seedRun(app.stores.runStore, denied, decisionHistories.waitingForApproval(denied, 'approver'));
    await expectAnswer(approve(denied, { decision: 'deny', reason: 'not this file' }), 200);

    const input = (runId: string, body: unknown = { input: { file: 'notes.txt' } }, key?: HttpTestKey | null): Exchange => ({ method: 'POST', path: '/runs/{runId}/input', runId, body, ...(key === undefined ? {} : { key }) });
    const waitingForInput = `input-${randomUUID()}`;
    await seedRun(app.stores.runStore, waitingForInput, decisionHistories.waitingForInput(waitingForInput, 'asker'));
    await expectAnswer(input(waitingForInput, {}), 400);
    await expectAnswer(input(waitingForInput, undefined, null), 401);
    await expectAnswer(input(waitingForInput, undefined, clockAuditor), 403);
    await expectAnswer(input(missing()), 404);
    await expectAnswer(input(clockRun), 409);
    await expectAnswer(input(waitingForInput, { input: 'x'.repeat(BODY_LIMIT) }), 413);
    await expectAnswer(input(waitingForInput, { input: null }), 200);
  });

  it('operating: POST /runs/{runId}/cancel and /requeue', async () => {
    const cancel = (runId: string, body?: unknown, key?: HttpTestKey | null): Exchange => ({ method: 'POST', path: '/runs/{runId}/cancel', runId, ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) });
    const waiting = `cancel-${randomUUID()}`;
    await seedRun(app.stores.runStore, waiting, decisionHistories.waitingForInput(waiting, 'asker'));
    await expectAnswer(cancel(waiting, { requestedBy: 'someone' }), 400);
    await expectAnswer(cancel(waiting, undefined, null), 401);
    await expectAnswer(cancel(waiting, undefined, reader), 403);
    await expectAnswer(cancel(missing()), 404);
    await expectAnswer(cancel(waiting), 200); // without a body: the body is optional
    await expectAnswer(cancel(waiting, { reason: 'again' }), 409);
    await expectAnswer(cancel(await runningRun(), { reason: 'not needed' }), 202);

    const requeue = (runId: string, body?: unknown, key?: HttpTestKey | null): Exchange => ({ method: 'POST', path: '/runs/{runId}/requeue', runId, ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) });
    const dead = `dead-${randomUUID()}`;
    await seedRun(app.stores.runStore, dead, decisionHistories.deadLetteredMidAppend(dead, 'approver'));
    await expectAnswer(requeue(dead, { resolution: { outcome: 'maybe', note: 'x' } }), 400);
    await expectAnswer(requeue(dead, undefined, null), 401);
    await expectAnswer(requeue(dead, undefined, reader), 403);
    await expectAnswer(requeue(missing()), 404);
    await expectAnswer(requeue(dead), 409); // a write was in flight: the body must say what became of it
    await expectAnswer(requeue(clockRun, { reason: 'again' }), 409);
    await expectAnswer(requeue(dead, { reason: 'checked', resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } }), 202);
  });

  it('the audit: GET /audit/review and /audit/chains', async () => {
    for (const path of ['/audit/review', '/audit/chains']) {
      await expectAnswer({ method: 'GET', path }, 200);
      await expectAnswer({ method: 'GET', path, query: { runId: writerRun } }, 200);
      await expectAnswer({ method: 'GET', path, key: clockAuditor, query: { runId: clockRun } }, 200);
      await expectAnswer({ method: 'GET', path, query: { runId: 'bad!id' } }, 400);
      await expectAnswer({ method: 'GET', path, key: null }, 401);
      await expectAnswer({ method: 'GET', path, key: reader }, 403);
      await expectAnswer({ method: 'GET', path, key: clockAuditor, query: { runId: writerRun } }, 404);
    }
    await expectAnswer({ method: 'GET', path: '/audit/review', query: { limit: '1' } }, 200);
    await expectAnswer({ method: 'GET', path: '/audit/review', query: { limit: '0' } }, 400);
  });

  it('the read models: GET /projections, POST and GET /projections/rebuild (running with its progress, 409 meanwhile, then succeeded)', async () => {
    await expectAnswer({ method: 'GET', path: '/projections' }, 200);
    await expectAnswer({ method: 'GET', path: '/projections', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/projections', key: reader }, 403);
    await expectAnswer({ method: 'GET', path: '/projections/rebuild' }, 200);
    await expectAnswer({ method: 'GET', path: '/projections/rebuild', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/projections/rebuild', key: reader }, 403);
    await expectAnswer({ method: 'POST', path: '/projections/rebuild', body: { projection: 'nope' } }, 400);
    await expectAnswer({ method: 'POST', path: '/projections/rebuild', key: null }, 401);
    await expectAnswer({ method: 'POST', path: '/projections/rebuild', key: reader }, 403);

    // The real rebuild, held after its first progress record: its running state is read, and a second start is refused.
    const rebuilder = app.app.get(ProjectionRebuilder);
    const real = rebuilder.rebuildWithProgress.bind(rebuilder);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let progressed!: () => void;
    const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
    const held = jest.spyOn(rebuilder, 'rebuildWithProgress').mockImplementation(async function* (options) {
      const inner = real(options);
      const first = await inner.next();
      if (first.done === true) return first.value;
      yield first.value;
      progressed();
      await gate;
      return yield* inner;
    });
    try {
      await expectAnswer({ method: 'POST', path: '/projections/rebuild' }, 202);
      await firstProgress;
      await expectAnswer({ method: 'GET', path: '/projections/rebuild' }, 200);
      await expectAnswer({ method: 'POST', path: '/projections/rebuild', body: { projection: 'steps' } }, 409);
    } finally {
      release();
      held.mockRestore();
    }
    const deadline = Date.now() + scaled(15_000);
    for (;;) {
      const state = ((await expectAnswer({ method: 'GET', path: '/projections/rebuild' }, 200)) as { rebuild: { state: string } }).rebuild.state;
      if (state !== 'running') {
        expect(state).toBe('succeeded');
        break;
      }
      if (Date.now() > deadline) throw new Error('The rebuild did not end');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expectAnswer({ method: 'POST', path: '/projections/rebuild', body: { projection: 'steps' } }, 202);
  });

  it('the event streams: GET /runs/{runId}/events and /events, each frame a StreamedEvent', async () => {
    const framesBefore = checker.counts.eventFrames;
    const runEvents = (query: Record<string, string>, key?: HttpTestKey | null, runId = clockRun): Exchange => ({ method: 'GET', path: '/runs/{runId}/events', runId, query, ...(key === undefined ? {} : { key }) });
    await expectAnswer(runEvents({}), 200, '"type":"RunCompleted"');
    await expectAnswer(runEvents({ after: 'nonsense' }), 400);
    await expectAnswer(runEvents({}, null), 401);
    await expectAnswer(runEvents({}, clockAuditor), 403);
    await expectAnswer(runEvents({}, admin, missing()), 404);
    await expectAnswer(runEvents({}, clockOnly, writerRun), 404);
    await expectAnswer({ method: 'GET', path: '/events', query: {} }, 200, `"streamName":"run-${writerRun}"`);
    await expectAnswer({ method: 'GET', path: '/events', query: { after: 'nonsense' } }, 400);
    await expectAnswer({ method: 'GET', path: '/events', key: null }, 401);
    await expectAnswer({ method: 'GET', path: '/events', key: clockAuditor }, 403);
    await expectAnswer({ method: 'GET', path: '/events', key: clockOnly }, 403);
    // The run's history (RunRequested ... RunCompleted), then every run's history up to the writer's run: each frame checked.
    expect(checker.counts.eventFrames - framesBefore).toBeGreaterThan(10);
  });

  it('the answers of a failing store: GET /ready 503, a decision the run store could not take, a requeue whose statement could not be stored', async () => {
    // The real store, made to fail where the test says (a store that does not answer is the only way to these answers).
    const store = app.stores.runStore;
    const unavailable = () => new StoreUnavailableError('ioError', 'made unavailable by the test');
    const realReadAll = store.readAll.bind(store);
    const reads = jest.spyOn(store, 'readAll').mockImplementation((options) => {
      if (options?.direction !== 'backwards') return realReadAll(options);
      return {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(unavailable()) }),
      };
    });
    try {
      const report = (await expectAnswer({ method: 'GET', path: '/ready', key: null }, 503)) as { status: string };
      expect(report.status).toBe('error');
    } finally {
      reads.mockRestore();
    }

    const realAppend = store.append.bind(store);
    const failing = new Set<string>();
    const appends = jest.spyOn(store, 'append').mockImplementation((stream, events, options) => (failing.has(stream) ? Promise.reject(unavailable()) : realAppend(stream, events, options)));
    try {
      const waiting = `unstored-decision-${randomUUID()}`;
      await seedRun(store, waiting, decisionHistories.waitingForApproval(waiting, 'approver'));
      failing.add(`run-${waiting}`);
      const refused = (await expectAnswer({ method: 'POST', path: '/runs/{runId}/approval', runId: waiting, body: { decision: 'approve' } }, 503)) as { code: string };
      expect(refused.code).toBe('STORE_UNAVAILABLE');

      const dead = `unstored-requeue-${randomUUID()}`;
      await seedRun(store, dead, decisionHistories.deadLetteredMidAppend(dead, 'approver'));
      failing.add(`audit-${dead}`);
      const body = { reason: 'checked', resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } };
      const deferred = (await expectAnswer({ method: 'POST', path: '/runs/{runId}/requeue', runId: dead, body }, 503)) as { code: string; continuationRunId: string };
      expect(deferred).toMatchObject({ code: 'AUDIT_STATEMENT_NOT_STORED', continuationRunId: expect.any(String) });
      failing.clear();
      await expectAnswer({ method: 'POST', path: '/runs/{runId}/requeue', runId: dead, body }, 202);
    } finally {
      appends.mockRestore();
    }
  });

  it('every operation refuses a body that is not JSON (415), one over the limit (413) and one that is not valid JSON (400)', async () => {
    for (const operation of checker.operations()) {
      const [method, path] = operation.split(' ') as ['GET' | 'POST', string];
      await expectAnswer({ method, path, runId: clockRun, body: 'plain text', contentType: 'text/plain' }, 415);
      await expectAnswer({ method, path, runId: clockRun, body: { input: 'x'.repeat(BODY_LIMIT) } }, 413);
      await expectAnswer({ method, path, runId: clockRun, body: '{"input":' }, 400);
    }
  });


  it('the answers of failing stores on every route that reads or appends: 503 while one cannot be reached, 500 on an unexpected failure, 507 when the event store is full', async () => {
    // The real stores, made to fail (every call of the event store; every query of the read models) while the requests run.
    const store = app.stores.runStore;
    const readModels = app.app.get(ProjectionStore);
    const failing = async (fault: 'unavailable' | 'unexpected', requests: () => Promise<void>): Promise<void> => {
      const storeError = () => (fault === 'unavailable' ? new StoreUnavailableError('ioError', 'made unavailable by the test') : new Error('made to fail by the test'));
      const spies = [
        ...(['append', 'readStream', 'readAll', 'subscribeToStream', 'subscribeToAll', 'storeIdentity'] as const).map((method) =>
          jest.spyOn(store, method).mockImplementation(() => {
            throw storeError();
          }),
        ),
        jest.spyOn(readModels, 'database', 'get').mockImplementation(() => {
          throw fault === 'unavailable' ? new ProjectionStoreClosedError(readModels.path) : new Error('made to fail by the test');
        }),
      ];
      try {
        await requests();
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    };
    const routes: Exchange[] = [
      { method: 'POST', path: '/runs', body: { agent: 'clock', input: 'go' } },
      { method: 'GET', path: '/runs' },
      { method: 'GET', path: '/runs/{runId}', runId: clockRun },
      { method: 'GET', path: '/runs/{runId}/steps', runId: clockRun },
      { method: 'POST', path: '/runs/{runId}/cancel', runId: clockRun },
      { method: 'POST', path: '/runs/{runId}/requeue', runId: clockRun },
      { method: 'POST', path: '/runs/{runId}/approval', runId: clockRun, body: { decision: 'approve' } },
      { method: 'POST', path: '/runs/{runId}/input', runId: clockRun, body: { input: 'x' } },
      { method: 'GET', path: '/approvals' },
      { method: 'GET', path: '/runs/{runId}/events', runId: clockRun },
      { method: 'GET', path: '/audit/review' },
      { method: 'GET', path: '/audit/chains' },
      { method: 'GET', path: '/projections' },
      { method: 'GET', path: '/metrics' },
    ];
    await failing('unavailable', async () => {
      for (const route of routes) await expectAnswer(route, 503);
    });
    await failing('unexpected', async () => {
      for (const route of routes) await expectAnswer(route, 500);
    });

    // Full: the appends fail, the reads answer, so each command reaches its append.
    const waitingForApproval = `full-approval-${randomUUID()}`;
    await seedRun(store, waitingForApproval, decisionHistories.waitingForApproval(waitingForApproval, 'approver'));
    const waitingForInput = `full-input-${randomUUID()}`;
    await seedRun(store, waitingForInput, decisionHistories.waitingForInput(waitingForInput, 'asker'));
    const deadLettered = `full-requeue-${randomUUID()}`;
    await seedRun(store, deadLettered, decisionHistories.deadLetteredMidAppend(deadLettered, 'approver'));
    const running = await runningRun();
    const appends = jest.spyOn(store, 'append').mockRejectedValue(new StoreFullError('made full by the test'));
    try {
      const full = async (exchange: Exchange) => expect(((await expectAnswer(exchange, 507)) as { code: string }).code).toBe('STORE_FULL');
      await full({ method: 'POST', path: '/runs', body: { agent: 'clock', input: 'go' } });
      await full({ method: 'POST', path: '/runs/{runId}/cancel', runId: running });
      await full({ method: 'POST', path: '/runs/{runId}/approval', runId: waitingForApproval, body: { decision: 'approve' } });
      await full({ method: 'POST', path: '/runs/{runId}/input', runId: waitingForInput, body: { input: 'x' } });
      await full({ method: 'POST', path: '/runs/{runId}/requeue', runId: deadLettered, body: { reason: 'checked', resolution: { outcome: 'notExecuted', note: 'no line in log.txt' } } });
    } finally {
      appends.mockRestore();
    }
  });

  it('exercised every operation of the document, and answered every status it declares', () => {
    const operations = checker.operations();
    expect(operations.length).toBe(23);
    expect(operations.filter((operation) => !checker.answered.has(operation))).toEqual([]);
    const answered = [...checker.answered].flatMap(([operation, statuses]) => [...statuses].map((status) => `${operation} ${status}`));
    const declared = checker.declaredStatuses();
    expect(declared.filter((status) => !answered.includes(status))).toEqual([]);
    // Each answer was checked as it came (an undeclared status fails there).
    expect(answered.length).toBe(declared.length);
  });
});
