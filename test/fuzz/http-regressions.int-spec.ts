/**
 * The bugs the HTTP fuzz suite found, each replayed through the real HTTP
 * stack of the real application (see `support/fuzz-service.ts`): the
 * request that failed, and what it must answer now. Nothing of it may append
 * to the stores.
 */
import { gzipSync } from 'node:zlib';
import type { FuzzService } from './support/fuzz-service';
import { startFuzzService } from './support/fuzz-service';
import type { Principal, PrincipalName } from './support/principals';
import { apiKeysEnv, fuzzAgentsYaml, makePrincipals } from './support/principals';
import type { RawAnswer } from './support/raw-http';
import { closeConnections, send } from './support/raw-http';
import { scaled } from '../support/time-scale';

describe('HTTP API regressions found by fuzzing', () => {
  jest.setTimeout(scaled(60_000));
  let service: FuzzService;
  let principals: Readonly<Record<PrincipalName, Principal>>;

  beforeAll(async () => {
    principals = makePrincipals();
    service = await startFuzzService({ agentsYaml: fuzzAgentsYaml(), env: { API_KEYS: apiKeysEnv(principals) } });
  });

  afterAll(async () => {
    closeConnections();
    await service?.close();
  });

  async function request(who: PrincipalName, method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<RawAnswer & { json: Record<string, unknown>; appended: number }> {
    const before = service.eventCount().total;
    const answer = await send(service.port, {
      method,
      path,
      headers: { authorization: `Bearer ${principals[who].key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    });
    return { ...answer, json: answer.body === '' ? {} : (JSON.parse(answer.body) as Record<string, unknown>), appended: service.eventCount().total - before };
  }

  it('refuses a body nested deeper than 128 levels with 400 naming the field (was: 500, stack overflow in the validation pipe)', async () => {
    for (const depth of [200, 5000, 60_000]) {
      const answer = await request('alice', 'POST', '/runs', `{"agent":"alice-clock","input":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect({ depth, status: answer.status, field: answer.json.field, rule: answer.json.rule, appended: answer.appended }).toEqual({ depth, status: 400, field: 'input', rule: 'maxDepth', appended: 0 });
    }
    const deepAgent = await request('alice', 'POST', '/runs', `{"input":1,"agent":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`);
    expect(deepAgent).toMatchObject({ status: 400, json: { field: 'agent', rule: 'maxDepth' }, appended: 0 });
    expect(service.loggedErrors()).toEqual([]);
  });

  it('refuses __proto__, constructor and prototype fields as unknown (was: dropped silently, the run started)', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const answer = await request('alice', 'POST', '/runs', `{"agent":"alice-clock","input":"x",${JSON.stringify(key)}:{"x":1}}`);
      expect(answer).toMatchObject({ status: 400, json: { code: 'INVALID_FIELD', field: key, rule: 'unknownField' }, appended: 0 });
    }
  });

  it('records a run\'s input and a submitted input exactly as sent, prototype keys included (was: the keys were dropped)', async () => {
    const input = '{"__proto__":{"admin":true},"constructor":"c","prototype":{"constructor":[1]}}';
    const started = await request('alice', 'POST', '/runs', `{"agent":"alice-clock","input":${input}}`);
    expect(started.status).toBe(202);
    const runId = started.json.runId as string;
    expect(JSON.stringify(service.runRequested(runId)?.input)).toBe(JSON.stringify(JSON.parse(input)));
    const asker = await request('alice', 'POST', '/runs', '{"agent":"alice-asker","input":"x","mode":"interactive"}');
    expect(asker.json).toMatchObject({ segment: 'waiting', run: { status: 'WAITING_FOR_INPUT' } });
    const submitted = await request('alice', 'POST', `/runs/${asker.json.runId as string}/input`, `{"input":${input}}`);
    expect(submitted).toMatchObject({ status: 200, json: { status: 'QUEUED' } });
    const recorded = service.streamEvents(`run-${asker.json.runId as string}`).find((event) => event.type === 'InputSubmitted');
    expect(JSON.stringify(recorded?.data.input)).toBe(JSON.stringify(JSON.parse(input)));
  });

  it('refuses an input number that overflows (1e400) with 400 naming input (was: 400 INVALID_EVENT naming no field)', async () => {
    const started = await request('alice', 'POST', '/runs', '{"agent":"alice-clock","input":{"n":1e400}}');
    expect(started).toMatchObject({ status: 400, json: { code: 'INVALID_FIELD', field: 'input', rule: 'isJsonValue' }, appended: 0 });
  });

  it('refuses a body its Content-Encoding cannot decode with 400 (was: 500)', async () => {
    const answer = await request('alice', 'POST', '/runs', '{"agent":"alice-clock","input":"x"}', { 'content-encoding': 'gzip' });
    expect(answer).toMatchObject({ status: 400, json: { code: 'MALFORMED_BODY', field: 'body', rule: 'encoding' }, appended: 0 });
    const bomb = await request('alice', 'POST', '/runs', gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)), { 'content-encoding': 'gzip' });
    expect(bomb).toMatchObject({ status: 413, json: { code: 'PAYLOAD_TOO_LARGE' }, appended: 0 });
    expect(service.loggedErrors()).toEqual([]);
  });

  it('refuses null for an optional field with 400 naming it (was: 500 for idempotencyKey and resolution, 400 naming data.reason)', async () => {
    const start = await request('alice', 'POST', '/runs', '{"agent":"alice-clock","input":"x","idempotencyKey":null}');
    expect(start).toMatchObject({ status: 400, json: { field: 'idempotencyKey', rule: 'isString' }, appended: 0 });
    const queued = await request('ops', 'POST', '/runs', '{"agent":"ops-clock","input":"x"}');
    const requeue = await request('ops', 'POST', `/runs/${queued.json.runId as string}/requeue`, '{"reason":"ops","resolution":null}');
    expect(requeue).toMatchObject({ status: 400, json: { field: 'resolution', rule: 'nestedValidation' }, appended: 0 });
    const writer = await request('alice', 'POST', '/runs', '{"agent":"alice-writer","input":"x","mode":"interactive"}');
    expect(writer.json).toMatchObject({ run: { status: 'WAITING_FOR_APPROVAL' } });
    const decision = await request('alice', 'POST', `/runs/${writer.json.runId as string}/approval`, '{"decision":"approve","reason":null}');
    expect(decision).toMatchObject({ status: 400, json: { field: 'reason', rule: 'isString' }, appended: 0 });
    const cancel = await request('ops', 'POST', `/runs/${queued.json.runId as string}/cancel`, '{"reason":null}');
    expect(cancel).toMatchObject({ status: 400, json: { field: 'reason', rule: 'isString' }, appended: 0 });
    expect(service.loggedErrors()).toEqual([]);
  });

  it('refuses a body that is not JSON with 415 on the routes whose body is optional (was: ignored, the run cancelled, a continuation started, a rebuild run)', async () => {
    const queued = await request('ops', 'POST', '/runs', '{"agent":"ops-clock","input":"x"}');
    const runId = queued.json.runId as string;
    for (const [path, type, body] of [
      [`/runs/${runId}/cancel`, 'text/plain;charset=UTF-8', '{"reason":"not needed"}'],
      [`/runs/${runId}/requeue`, 'multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="reason"\r\n\r\nx\r\n--b--\r\n'],
      ['/projections/rebuild', 'application/xml', '<rebuild/>'],
      [`/runs/${runId}/cancel`, 'application/x-www-form-urlencoded', 'reason=x'],
    ] as const) {
      const answer = await request('ops', 'POST', path, body, { 'content-type': type });
      expect({ path, type, status: answer.status, code: answer.json.code, appended: answer.appended }).toEqual({ path, type, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', appended: 0 });
    }
    expect(service.streamEvents(`run-${runId}`).map((event) => event.type)).toEqual(['RunRequested']);
    expect(service.loggedErrors()).toEqual([]);
  });

  it('answers a key limited to some agents, for a value that is not a run id, as any key: 400 naming runId (was: 400 INVALID_STREAM_NAME naming no field)', async () => {
    for (const path of ['/runs/%20', `/runs/${'r'.repeat(300)}`, '/runs/x%0Ay/steps', '/runs/%20/events', '/approvals?runId=%20x', `/audit/review?runId=${'b'.repeat(300)}`]) {
      const limited = await request('alice', 'GET', path);
      const operator = await request('ops', 'GET', path);
      expect({ path, status: limited.status, field: limited.json.field }).toEqual({ path, status: 400, field: 'runId' });
      // The same answer as for a key of every agent (which the route itself refuses).
      const { statusCode, code, field, rule, message } = operator.json;
      expect({ path, ...limited.json, issues: undefined, problem: undefined }).toMatchObject({ path, statusCode, code, field, rule, message });
    }
    const decision = await request('alice', 'POST', '/runs/%20/approval', '{"decision":"approve"}');
    expect(decision).toMatchObject({ status: 400, json: { field: 'runId' }, appended: 0 });
  });
});
