import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@agent-ledger/event-store';
import type { HttpTestApp, HttpTestKey } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';

/** An answer read off the socket (an event stream: its head only). */
interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly json: Record<string, unknown>;
}

/** How the body goes: with a Content-Length, or chunked (no length; an empty body is the last chunk alone). */
type Framing = 'length' | 'chunked';

/** Sends a request as written, body bytes and framing included (fetch would set its own Content-Type and length). */
function send(baseUrl: string, options: { method: string; path: string; key?: HttpTestKey | null; contentType?: string | null; body?: string; framing?: Framing }): Promise<RawAnswer> {
  const { method, path, key = null, contentType = null, body, framing = 'length' } = options;
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string | number> = {
    ...(key === null ? {} : { authorization: `Bearer ${key.key}` }),
    ...(contentType === null ? {} : { 'content-type': contentType }),
    ...(body === undefined ? {} : framing === 'chunked' ? { 'transfer-encoding': 'chunked' } : { 'content-length': Buffer.byteLength(body) }),
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: {} });
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text !== '' && String(res.headers['content-type']).startsWith('application/json') ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined && framing === 'chunked') {
      // Several chunks, so that the first one is not the whole body.
      for (let at = 0; at < body.length; at += 5) req.write(body.slice(at, at + 5));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** The position of the last event of `$all` (null: the store is empty). */
async function allHead(store: EventStore): Promise<string | null> {
  for await (const event of store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) return String(event.position);
  return null;
}

describe('request bodies: only application/json is read, on every route; an empty body only where it is optional', () => {
  const ops = httpTestKey('ops', ['operate', 'runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'metrics:read']);
  let consoleDir: string;
  let app: HttpTestApp;

  beforeAll(async () => {
    consoleDir = mkdtempSync(join(tmpdir(), 'agent-ledger-bodies-console-'));
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
    mkdirSync(join(consoleDir, 'assets'));
    writeFileSync(join(consoleDir, 'assets', 'app.js'), 'export {};');
    app = await startHttpTestApp({ keys: [ops], env: { CONSOLE_DIR: consoleDir } });
  });

  afterAll(async () => {
    await app?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  /** The head of `$all` in the run store and the audit store. */
  async function heads(): Promise<readonly (string | null)[]> {
    return [await allHead(app.stores.runStore), await allHead(app.stores.auditStore)];
  }

  async function queuedRun(): Promise<string> {
    const started = await app.call('POST', '/runs', { key: ops, body: { agent: 'clock', input: 'x' } });
    expect(started.status).toBe(202);
    return (started.body as { runId: string }).runId;
  }

  /** The types of a run's events, read from its stream in the store. */
  async function runEvents(runId: string): Promise<readonly string[]> {
    return (await app.stores.runStore.readStream(`run-${runId}`)).events.map((event) => event.type);
  }

  it('refuses a cancel whose reason is text/plain (as fetch() sends a string) with 415: the run is not cancelled, nothing is appended (was: 200, cancelled, the reason dropped)', async () => {
    const runId = await queuedRun();
    const before = await heads();
    const answer = await send(app.baseUrl, { method: 'POST', path: `/runs/${runId}/cancel`, key: ops, contentType: 'text/plain;charset=UTF-8', body: '{"reason":"not needed"}' });
    expect(answer.status).toBe(415);
    expect(answer.json).toEqual({
      statusCode: 415,
      error: 'Unsupported Media Type',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'The request body is "text/plain": the API reads application/json bodies only (send Content-Type: application/json, or no body)',
      field: 'Content-Type',
      rule: 'mediaType',
      received: 'text/plain',
      expected: 'application/json',
    });
    expect(await heads()).toEqual(before);
    expect(await runEvents(runId)).toEqual(['RunRequested']);
  });

  it.each<[string | null, string, string, Framing]>([
    ['multipart/form-data; boundary=b', 'multipart/form-data', '--b\r\nContent-Disposition: form-data; name="reason"\r\n\r\nx\r\n--b--\r\n', 'length'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'reason=x', 'length'],
    ['application/xml', 'application/xml', '<reason>x</reason>', 'chunked'],
    ['application/merge-patch+json', 'application/merge-patch+json', '{"reason":"x"}', 'length'],
    [null, 'none', '{"reason":"x"}', 'chunked'],
    [null, 'none', '{"reason":"x"}', 'length'],
  ])('refuses a cancel, a requeue and a rebuild with Content-Type %s (415 naming %s, nothing appended, the run still queued)', async (contentType, received, body, framing) => {
    const runId = await queuedRun();
    for (const path of [`/runs/${runId}/cancel`, `/runs/${runId}/requeue`, '/projections/rebuild']) {
      const before = await heads();
      const answer = await send(app.baseUrl, { method: 'POST', path, key: ops, contentType, body, framing });
      expect({ path, framing, status: answer.status, code: answer.json.code, received: answer.json.received }).toEqual({ path, framing, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', received });
      expect(await heads()).toEqual(before);
    }
    expect(await runEvents(runId)).toEqual(['RunRequested']);
    expect((await app.call('GET', '/projections/rebuild', { key: ops })).body).toMatchObject({ rebuild: { state: 'idle' } });
  });

  it('names a request without Content-Type as such', async () => {
    const answer = await send(app.baseUrl, { method: 'POST', path: '/runs', key: ops, body: '{"agent":"clock","input":"x"}' });
    expect(answer.json).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', received: 'none', message: expect.stringContaining('no Content-Type') as string });
  });

  it('refuses a body on routes that take none (GET, DELETE, unknown routes), before authentication', async () => {
    for (const [method, path, key] of [
      ['GET', '/runs', ops],
      ['GET', '/me', ops],
      ['DELETE', '/runs', ops],
      ['GET', '/runs', null],
      ['GET', '/no/such/route', ops],
    ] as const) {
      const answer = await send(app.baseUrl, { method, path, key, contentType: 'text/plain', body: 'x' });
      expect({ method, path, status: answer.status, code: answer.json.code }).toEqual({ method, path, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('takes a JSON body with its parameters (charset=utf-8); refuses a charset that is not a UTF as before', async () => {
    const runId = await queuedRun();
    const cancelled = await send(app.baseUrl, { method: 'POST', path: `/runs/${runId}/cancel`, key: ops, contentType: 'Application/JSON; charset=utf-8', body: '{"reason":"not needed"}', framing: 'chunked' });
    expect(cancelled).toMatchObject({ status: 200, json: { run: { status: 'CANCELLED' } } });
    expect(await runEvents(runId)).toContain('RunCancelled');
    const latin = await send(app.baseUrl, { method: 'POST', path: '/runs', key: ops, contentType: 'application/json; charset=latin1', body: '{"agent":"clock","input":"x"}' });
    expect(latin).toMatchObject({ status: 415, json: { code: 'CHARSET_UNSUPPORTED' } });
  });

  it('takes an empty body of any type where the body is optional (cancel, requeue, rebuild)', async () => {
    for (const [contentType, framing] of [
      ['text/plain', 'length'],
      [null, 'chunked'],
      ['application/json', 'length'],
      ['application/json', 'chunked'],
    ] as const) {
      const runId = await queuedRun();
      const cancelled = await send(app.baseUrl, { method: 'POST', path: `/runs/${runId}/cancel`, key: ops, contentType, body: '', framing });
      expect({ contentType, framing, status: cancelled.status }).toEqual({ contentType, framing, status: 200 });
      // Not dead-lettered: the route's own refusal, past the body.
      const requeued = await send(app.baseUrl, { method: 'POST', path: `/runs/${runId}/requeue`, key: ops, contentType, body: '', framing });
      expect({ contentType, framing, status: requeued.status, code: requeued.json.code }).toEqual({ contentType, framing, status: 409, code: 'RUN_NOT_DEAD_LETTERED' });
    }
    const rebuild = await send(app.baseUrl, { method: 'POST', path: '/projections/rebuild', key: ops, contentType: 'text/plain', body: '' });
    expect(rebuild.status).toBe(202);
  });

  it('refuses an empty or absent body where the body is required with 400 naming the body first, then the missing fields; nothing is appended', async () => {
    const runId = await queuedRun();
    for (const [path, fields] of [
      ['/runs', ['agent', 'input']],
      [`/runs/${runId}/approval`, ['decision']],
      [`/runs/${runId}/input`, ['input']],
    ] as const) {
      for (const [contentType, body, framing] of [
        ['application/json', '', 'length'],
        ['application/json', '', 'chunked'],
        [null, undefined, 'length'],
        ['text/plain', '', 'length'],
      ] as const) {
        const before = await heads();
        const answer = await send(app.baseUrl, { method: 'POST', path, key: ops, contentType, body, framing });
        const what = { path, contentType, framing };
        expect({ ...what, status: answer.status, field: answer.json.field, rule: answer.json.rule }).toEqual({ ...what, status: 400, field: 'body', rule: 'isPresent' });
        expect(answer.json.message).toBe(`body is required: a JSON object with ${fields.join(', ')} (the request has no body)`);
        const issues = answer.json.issues as Array<{ field: string }>;
        expect(issues.map((issue) => issue.field)).toEqual(['body', ...fields]);
        expect(await heads()).toEqual(before);
      }
    }
    // `{}` is a body: its missing fields are named, not the body.
    const empty = await send(app.baseUrl, { method: 'POST', path: '/runs', key: ops, contentType: 'application/json', body: '{}' });
    expect(empty).toMatchObject({ status: 400, json: { field: 'agent' } });
  });

  it('serves the console and opens event streams as before', async () => {
    const index = await send(app.baseUrl, { method: 'GET', path: '/console/' });
    expect(index.status).toBe(200);
    expect(String(index.headers['content-type'])).toMatch(/^text\/html/);
    const asset = await send(app.baseUrl, { method: 'GET', path: '/console/assets/app.js' });
    expect(asset.status).toBe(200);
    const runId = await queuedRun();
    const stream = await send(app.baseUrl, { method: 'GET', path: `/runs/${runId}/events`, key: ops });
    expect(stream.status).toBe(200);
    expect(String(stream.headers['content-type'])).toMatch(/^text\/event-stream/);
  });

  it('answers a non-JSON body declared over the body limit at once, before reading it, and closes the connection', async () => {
    // Only the head is sent: the answer must come without the body (sending it too would race the server's close).
    const { hostname, port } = new URL(app.baseUrl);
    const headers = { authorization: `Bearer ${ops.key}`, 'content-type': 'text/plain', 'content-length': app.config.httpBodyLimitBytes + 1 };
    const answer = await new Promise<RawAnswer>((resolve, reject) => {
      const req = request({ host: hostname, port, method: 'POST', path: '/runs', headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
          req.destroy();
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(answer).toMatchObject({ status: 415, headers: { connection: 'close' }, json: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });
});
