/**
 * Authentication and authorisation, metrics and the OpenAPI document of the
 * HTTP API, end to end: the service is a child process configured with API
 * keys (hashed) in `API_KEYS`.
 */
import type { RunPage } from '@agent-ledger/projections';
import type { ApiErrorBody } from '../../libs/http/src/errors/api-error-body';
import type { ReadinessReport } from '../../libs/http/src/health/readiness.service';
import type { TestKey } from './support/http-auth-support';
import { apiKeysEnv, parsePrometheusText, sampleValue, testKey, withKey } from './support/http-auth-support';
import type { HoldingModelServer, HttpService } from './support/http-service';
import { eventually, openSse, request, startHoldingModelServer, startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

interface OpenApiOperation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>;
  readonly requestBody?: { readonly content: Record<string, { readonly schema: { readonly $ref?: string } }> };
  readonly responses: Record<string, unknown>;
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly 'x-required-scopes'?: readonly string[];
}
interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
  readonly components: { readonly securitySchemes: Record<string, { readonly type: string; readonly scheme?: string; readonly in?: string; readonly name?: string }>; readonly schemas: Record<string, unknown> };
}

describe('the HTTP API with API keys (e2e)', () => {
  jest.setTimeout(scaled(60_000));
  const admin = testKey('admin', ['runs:submit', 'runs:read', 'audit:read', 'operate']);
  const clockSubmitter = testKey('clock-submitter', ['runs:submit', 'runs:read'], { agents: ['clock'] });
  const writerReader = testKey('writer-reader', ['runs:read'], { agents: ['writer'] });
  const bothReader = testKey('both-reader', ['runs:read'], { agents: ['clock', 'writer'] });
  const auditor = testKey('auditor', ['audit:read']);
  const writerAuditor = testKey('writer-auditor', ['audit:read'], { agents: ['writer'] });
  const scraper = testKey('scraper', ['metrics:read'], { scrypt: true });
  const keys: TestKey[] = [admin, clockSubmitter, writerReader, bothReader, auditor, writerAuditor, scraper];
  let model: HoldingModelServer;
  let service: HttpService;
  let base: string;
  let clockRun: string;
  let writerRun: string;

  beforeAll(async () => {
    model = await startHoldingModelServer();
    service = await startHttpService({ agentsYaml: testAgentsYaml(model.baseUrl), env: { API_KEYS: apiKeysEnv(keys), WORKER_CONCURRENCY: '1' } });
    base = service.baseUrl;
    const clock = await withKey(base, clockSubmitter).post<{ runId: string; run: { status: string } }>('/runs', { agent: 'clock', input: 'time?', mode: 'interactive' });
    expect(clock.status).toBe(200);
    clockRun = clock.body.runId;
    const writer = await withKey(base, admin).post<{ runId: string }>('/runs', { agent: 'writer', input: 'write', mode: 'interactive' });
    expect(writer.status).toBe(200);
    writerRun = writer.body.runId;
    await eventually(async () => ((await withKey(base, admin).get(`/runs/${writerRun}`)).status === 200 ? true : undefined), 'the writer run in the read model');
    await eventually(async () => ((await withKey(base, admin).get(`/runs/${clockRun}`)).status === 200 ? true : undefined), 'the clock run in the read model');
  });

  afterAll(async () => {
    await service?.stop();
    await model?.close();
  });

  it('logs that keys are required, not the development warning', () => {
    expect(service.output()).toContain('API keys required (7 configured');
    expect(service.output()).not.toContain('AUTHENTICATION IS DISABLED');
  });

  it('answers /health and /ready without a key', async () => {
    expect(await request(base, 'GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await request<ReadinessReport>(base, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.auth).toEqual({ mode: 'api-keys' });
  });

  it('answers 401 without a key, with a wrong key and with a malformed header, naming the bearer scheme', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer not-a-configured-key' }, { authorization: `Basic ${admin.key}` }, { 'x-api-key': 'nope' }];
    for (const headers of attempts) {
      const answer = await request<ApiErrorBody>(base, 'GET', '/runs', undefined, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="agent-ledger"');
    }
    expect((await request(base, 'POST', '/runs', { agent: 'clock', input: 'x' })).status).toBe(401);
    expect((await request(base, 'GET', '/openapi.json')).status).toBe(401);
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
  });

  it('accepts the key in X-API-Key too', async () => {
    expect((await request(base, 'GET', '/runs', undefined, { 'x-api-key': admin.key })).status).toBe(200);
  });

  it('answers 403 to a key without the scope of the route', async () => {
    const cases: Array<[TestKey, string, string, unknown?]> = [
      [auditor, 'GET', '/runs'],
      [writerReader, 'POST', '/runs', { agent: 'writer', input: 'x' }],
      [auditor, 'GET', '/events'],
      [writerReader, 'GET', '/audit/review'],
      [writerReader, 'GET', '/metrics'],
      [scraper, 'GET', '/projections'],
      [writerReader, 'POST', `/runs/${writerRun}/cancel`, {}],
    ];
    for (const [key, method, path, body] of cases) {
      const answer = await request<ApiErrorBody>(base, method, path, body, { authorization: `Bearer ${key.key}` });
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({ path, status: 403, code: 'SCOPE_MISSING' });
      expect(answer.body.keyId).toBe(key.entry.id);
    }
    // `operate` may read the metrics as well as `metrics:read`.
    expect((await fetch(`${base}/metrics`, { headers: withKey(base, admin).headers() })).status).toBe(200);
  });

  it('limits a key to its agents: it starts only their runs', async () => {
    const refused = await withKey(base, clockSubmitter).post<ApiErrorBody>('/runs', { agent: 'writer', input: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'NOT_ENTITLED', field: 'agent' });
  });

  it('limits what GET /runs lists to the runs of the agents of the key, and pages across several agents', async () => {
    const onlyWriter = await withKey(base, writerReader).get<RunPage>('/runs');
    expect(onlyWriter.status).toBe(200);
    expect(onlyWriter.body.runs.map((r) => r.runId)).toEqual([writerRun]);
    expect((await withKey(base, writerReader).get<RunPage>('/runs?agent=clock')).body).toEqual({ runs: [], nextCursor: null });
    const everything = await withKey(base, admin).get<RunPage>('/runs');
    expect(everything.body.runs.map((r) => r.runId).sort()).toEqual([clockRun, writerRun].sort());
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: RunPage } = await withKey(base, bothReader).get<RunPage>(`/runs?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      paged.push(...page.body.runs.map((r) => r.runId));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(paged).toEqual(everything.body.runs.map((r) => r.runId));
  });

  it("answers 404 for a run of another agent, as for a run that does not exist", async () => {
    for (const [key, path] of [
      [writerReader, `/runs/${clockRun}`],
      [writerReader, `/runs/${clockRun}/steps`],
      [writerReader, `/runs/${clockRun}/events`],
      [writerAuditor, `/audit/review?runId=${clockRun}`],
    ] as const) {
      const answer = await withKey(base, key).get<ApiErrorBody>(path);
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({ path, status: 404, code: 'RUN_NOT_FOUND' });
    }
    expect((await withKey(base, writerAuditor).get(`/audit/review?runId=${writerRun}`)).status).toBe(200);
    expect((await withKey(base, writerReader).get(`/runs/${writerRun}`)).status).toBe(200);
    expect((await withKey(base, writerReader).get(`/runs/${writerRun}/steps`)).status).toBe(200);
    expect((await withKey(base, writerReader).get('/runs/never-requested')).status).toBe(404);
  });

  it('refuses a route across every run to a key limited to some agents', async () => {
    for (const [key, path] of [
      [writerReader, '/events'],
      [writerAuditor, '/audit/review'],
    ] as const) {
      const answer = await withKey(base, key).get<ApiErrorBody>(path);
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({ path, status: 403, code: 'NOT_ENTITLED' });
    }
    expect((await withKey(base, auditor).get('/audit/review')).status).toBe(200);
  });

  it('requires runs:read for the event streams, and streams to a key that has it', async () => {
    expect((await request(base, 'GET', `/runs/${writerRun}/events`)).status).toBe(401);
    expect((await request<ApiErrorBody>(base, 'GET', `/runs/${writerRun}/events`, undefined, { authorization: `Bearer ${auditor.key}` })).status).toBe(403);
    const stream = await openSse(`${base}/runs/${writerRun}/events`, withKey(base, writerReader).headers());
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      expect((await stream.next()).event).toBe('RunRequested');
    } finally {
      stream.close();
    }
    const all = await openSse(`${base}/events`, withKey(base, admin).headers());
    try {
      expect(all.status).toBe(200);
      expect((await all.next()).event).toBe('RunRequested');
    } finally {
      all.close();
    }
  });

  it('serves Prometheus metrics to a scraper key (scrypt-hashed), and the counts follow the runs', async () => {
    const scrape = async () => {
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${scraper.key}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      return parsePrometheusText(await response.text());
    };
    const before = await scrape();
    for (const name of [
      'agent_ledger_runs',
      'agent_ledger_steps',
      'agent_ledger_lease_lost_total',
      'agent_ledger_audit_append_failures_total',
      'agent_ledger_audit_commands_rejected_total',
      'agent_ledger_decider_failures_total',
      'agent_ledger_reaper_actions_total',
      'agent_ledger_projection_lag_events',
      'agent_ledger_writes_without_audit',
      'process_resident_memory_bytes',
    ]) {
      expect(before.some((s) => s.name === name)).toBe(true);
    }
    expect(sampleValue(before, 'agent_ledger_reaper_actions_total', { action: 'requeued' })).toBe(0);
    expect(sampleValue(before, 'agent_ledger_projection_lag_events', { projection: 'runStatus', source: 'runs' })).toEqual(expect.any(Number));
    const completed = sampleValue(before, 'agent_ledger_runs', { status: 'COMPLETED' }) ?? 0;
    const reads = sampleValue(before, 'agent_ledger_steps', { kind: 'tool', effect: 'READ_ONLY' }) ?? 0;
    expect(completed).toBeGreaterThanOrEqual(2);
    expect(sampleValue(before, 'agent_ledger_steps', { kind: 'tool', effect: 'NON_IDEMPOTENT_WRITE' })).toBeGreaterThanOrEqual(1);

    const run = await withKey(base, clockSubmitter).post<{ runId: string }>('/runs', { agent: 'clock', input: 'again', mode: 'interactive' });
    expect(run.status).toBe(200);
    const after = await eventually(async () => {
      const samples = await scrape();
      return sampleValue(samples, 'agent_ledger_runs', { status: 'COMPLETED' }) === completed + 1 ? samples : undefined;
    }, 'the completed run in the metrics');
    expect(sampleValue(after, 'agent_ledger_steps', { kind: 'tool', effect: 'READ_ONLY' })).toBe(reads + 1);
    expect(sampleValue(after, 'agent_ledger_tool_executions_total')).toBeGreaterThan(sampleValue(before, 'agent_ledger_tool_executions_total') ?? 0);
  });

  it('serves the OpenAPI document to any key: every route with its security, request schema and status codes', async () => {
    const answer = await withKey(base, auditor).get<OpenApiDocument>('/openapi.json');
    expect(answer.status).toBe(200);
    const document = answer.body;
    expect(document.openapi).toMatch(/^3\./);
    expect(document.components.securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' }, apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' } });
    const routes: Array<[string, string, string[], string[] | 'public']> = [
      ['post', '/runs', ['200', '202', '400', '409', '413'], ['runs:submit']],
      ['get', '/runs', ['200', '400'], ['runs:read']],
      ['get', '/runs/{runId}', ['200', '400', '404'], ['runs:read']],
      ['get', '/runs/{runId}/steps', ['200', '400', '404'], ['runs:read']],
      ['post', '/runs/{runId}/cancel', ['200', '202', '400', '404', '409'], ['operate']],
      ['get', '/runs/{runId}/events', ['200', '400', '404'], ['runs:read']],
      ['get', '/events', ['200', '400'], ['runs:read']],
      ['get', '/audit/review', ['200', '400', '404'], ['audit:read']],
      ['get', '/projections', ['200'], ['operate']],
      ['get', '/metrics', ['200'], ['metrics:read', 'operate']],
      ['get', '/health', ['200'], 'public'],
      ['get', '/ready', ['200', '503'], 'public'],
    ];
    for (const [method, path, statuses, scopes] of routes) {
      const operation = document.paths[path]?.[method];
      expect({ route: `${method} ${path}`, documented: operation !== undefined }).toEqual({ route: `${method} ${path}`, documented: true });
      const codes = Object.keys(operation?.responses ?? {});
      if (scopes === 'public') {
        expect(operation?.security).toBeUndefined();
        expect(codes).toEqual(expect.arrayContaining(statuses));
      } else {
        expect(operation?.security).toEqual([{ bearer: [] }, { apiKeyHeader: [] }]);
        expect(operation?.['x-required-scopes']).toEqual(scopes);
        expect(codes).toEqual(expect.arrayContaining([...statuses, '401', '403']));
      }
    }
    // Every route of the service is in the document (none forgotten), and nothing else.
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(documented.filter((route) => route !== 'get /openapi.json').sort()).toEqual(expect.arrayContaining(routes.map(([m, p]) => `${m} ${p}`).sort()));
    // Request schemas: the bodies and the query parameters are the client's contract's (@agent-ledger/client).
    expect(document.paths['/runs']?.post?.requestBody?.content['application/json']?.schema.$ref).toBe('#/components/schemas/StartRunRequest');
    expect(document.components.schemas.StartRunRequest).toMatchObject({ required: ['agent', 'input'], properties: { mode: { enum: ['interactive', 'queued'] } } });
    expect(document.paths['/runs/{runId}/cancel']?.post?.requestBody?.content['application/json']?.schema.$ref).toBe('#/components/schemas/CancelRunRequest');
    expect(document.paths['/runs']?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:status', 'query:reason', 'query:agent', 'query:since', 'query:until', 'query:limit', 'query:cursor']),
    );
    expect(document.paths['/runs/{runId}/events']?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['path:runId', 'query:after', 'header:Last-Event-ID']));
  });
});

describe('the service without API keys (e2e)', () => {
  jest.setTimeout(scaled(90_000));

  it('runs on loopback in the development mode, and says so loudly, at start-up and in /ready', async () => {
    const model = await startHoldingModelServer();
    const service = await startHttpService({ agentsYaml: testAgentsYaml(model.baseUrl), env: { WORKER_CONCURRENCY: '0', REAPER_INTERVAL_MS: '0' } });
    try {
      expect(service.output()).toContain('AUTHENTICATION IS DISABLED');
      const runs = await request(service.baseUrl, 'GET', '/runs');
      expect(runs.status).toBe(200);
      expect(runs.headers.get('x-agent-ledger-auth')).toBe('disabled-on-loopback');
      const ready = await request<ReadinessReport>(service.baseUrl, 'GET', '/ready');
      expect(ready.body.auth).toMatchObject({ mode: 'disabled-on-loopback', warning: expect.stringContaining('AUTHENTICATION IS DISABLED') as string });
    } finally {
      await service.stop();
      await model.close();
    }
  });

  it.each([
    ['HOST=0.0.0.0 without a key', { HOST: '0.0.0.0' }, 'API_KEYS must hold at least one key when HOST is not a loopback address'],
    ['the development mode on a non-loopback host', { HOST: '0.0.0.0', AUTH_MODE: 'disabled-on-loopback' }, 'AUTH_MODE may be disabled-on-loopback only when HOST is a loopback address'],
    ['a misspelt AUTH_MODE', { AUTH_MODE: 'disabled' }, 'AUTH_MODE must be one of api-keys, disabled-on-loopback'],
  ])('refuses to start with %s, naming the setting', async (_what, env, message) => {
    await expect(startHttpService({ agentsYaml: testAgentsYaml('http://127.0.0.1:9/v1'), env })).rejects.toThrow(message);
  });
});
