/**
 * The console's static files and the routes the console calls, end to end:
 * the service is a child process (the built one in CI) with `CONSOLE_DIR`
 * pointing at a folder the test writes (never the real console build), in the
 * development mode (no key) and with API keys.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { API_SCOPES } from '../../libs/http/src/auth/api-keys';
import { CONSOLE_CONTENT_SECURITY_POLICY, CONSOLE_SECURITY_HEADERS } from '../../libs/http/src/console/console-security-headers';
import type { RebuildAnswer } from '../../libs/http/src/projections/projection-rebuild.controller';
import { apiKeysEnv, testKey, withKey } from './support/http-auth-support';
import type { HttpService } from './support/http-service';
import { eventually, request, startHttpService, testAgentsYaml } from './support/http-service';
import { scaled } from '../support/time-scale';

/** A GET with the path exactly as written (fetch would normalize `..` and `%2e`). */
function rawGet(baseUrl: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const INDEX = '<!doctype html><title>agent-ledger</title><script type="module" src="/console/assets/x.js"></script>';
const SCRIPT = 'console.log("x");\n';
const UNUSED_MODEL = 'http://127.0.0.1:9/v1';

describe('the console and its routes, development mode (e2e)', () => {
  jest.setTimeout(scaled(90_000));
  let folder: string;
  /** A file beside the console's folder, which no URL may reach. */
  let secret: string;
  let service: HttpService;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-ledger-console-e2e-'));
    secret = `${folder}-secret.txt`;
    mkdirSync(join(folder, 'assets'));
    writeFileSync(join(folder, 'index.html'), INDEX);
    writeFileSync(join(folder, 'assets', 'x.js'), SCRIPT);
    writeFileSync(secret, 'secret');
    service = await startHttpService({ agentsYaml: testAgentsYaml(UNUSED_MODEL), env: { CONSOLE_DIR: folder } });
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(folder, { recursive: true, force: true });
    rmSync(secret, { force: true });
  });

  it('serves the console under /console/ with its security headers, types and caching; / and /console lead there', async () => {
    const index = await fetch(`${service.baseUrl}/console/`);
    expect(index.status).toBe(200);
    expect(await index.text()).toBe(INDEX);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) expect({ name, value: index.headers.get(name) }).toEqual({ name, value });
    expect(index.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);

    const script = await fetch(`${service.baseUrl}/console/assets/x.js`);
    expect({ status: script.status, type: script.headers.get('content-type'), cache: script.headers.get('cache-control') }).toEqual({
      status: 200,
      type: 'text/javascript; charset=utf-8',
      cache: 'public, max-age=31536000, immutable',
    });
    expect(await script.text()).toBe(SCRIPT);

    const root = await fetch(`${service.baseUrl}/`, { redirect: 'manual' });
    expect({ status: root.status, location: root.headers.get('location') }).toEqual({ status: 302, location: '/console/' });
    const bare = await fetch(`${service.baseUrl}/console`, { redirect: 'manual' });
    expect({ status: bare.status, location: bare.headers.get('location') }).toEqual({ status: 301, location: '/console/' });
    // A browser follows both to the index.
    expect(await (await fetch(`${service.baseUrl}/`)).text()).toBe(INDEX);
  });

  it('answers 404 in the API error shape to a missing file and to paths out of the folder', async () => {
    const missing = await request(service.baseUrl, 'GET', '/console/assets/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: 'CONSOLE_FILE_NOT_FOUND' });
    const name = basename(secret);
    for (const path of [`/console/../${name}`, `/console/%2e%2e/${name}`, `/console/%2E%2E%2F${name}`, `/console/..%2f${name}`]) {
      const answer = await rawGet(service.baseUrl, path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.body).not.toContain('secret');
      expect(answer.headers['content-security-policy']).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    }
  });

  it('GET /me answers the development caller: no key id, every scope, every agent', async () => {
    const me = await request(service.baseUrl, 'GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ keyId: null, scopes: [...API_SCOPES], agents: null, authMode: 'disabled-on-loopback' });
  });

  it('POST /projections/rebuild rebuilds in the background of the service; GET follows it to succeeded', async () => {
    const started = await request<RebuildAnswer>(service.baseUrl, 'POST', '/projections/rebuild', { projection: 'steps' });
    expect(started.status).toBe(202);
    expect(started.body.rebuild).toMatchObject({ state: 'running', projections: ['steps'], requestedBy: 'development' });
    const done = await eventually(async () => {
      const answer = await request<RebuildAnswer>(service.baseUrl, 'GET', '/projections/rebuild');
      return answer.body.rebuild.state === 'running' ? undefined : answer.body.rebuild;
    }, 'the rebuild to end');
    expect(done).toMatchObject({ state: 'succeeded', result: { projections: ['steps'] }, error: null });
  });
});

describe('the console not built, and the routes with API keys (e2e)', () => {
  jest.setTimeout(scaled(90_000));
  const limited = testKey('clock-bot', ['runs:submit', 'runs:read'], { agents: ['clock'] });
  const auditor = testKey('auditor', ['audit:read']);
  let empty: string;
  let service: HttpService;

  beforeAll(async () => {
    empty = mkdtempSync(join(tmpdir(), 'agent-ledger-console-empty-e2e-'));
    service = await startHttpService({ agentsYaml: testAgentsYaml(UNUSED_MODEL), env: { CONSOLE_DIR: empty, API_KEYS: apiKeysEnv([limited, auditor]) } });
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(empty, { recursive: true, force: true });
  });

  it('starts, logs one warning naming the folder, and answers /console/ 404 CONSOLE_NOT_BUILT without a key', async () => {
    const warnings = service.output().split('\n').filter((line) => line.includes('console is not built'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(empty);
    const answer = await request(service.baseUrl, 'GET', '/console/');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'CONSOLE_NOT_BUILT', message: expect.stringContaining('npm run build') as string });
    expect(answer.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
  });

  it('GET /me and GET /agents for a key limited to one agent; /audit/chains for an auditor', async () => {
    expect((await withKey(service.baseUrl, limited).get('/me')).body).toEqual({ keyId: 'clock-bot', scopes: ['runs:submit', 'runs:read'], agents: ['clock'], authMode: 'api-keys' });
    const agents = await withKey(service.baseUrl, limited).get<{ agents: { name: string; tools: { name: string; effect: string }[] }[] }>('/agents');
    expect(agents.status).toBe(200);
    expect(agents.body.agents).toEqual([expect.objectContaining({ name: 'clock', tools: [{ name: 'clock.now', effect: 'READ_ONLY', source: { kind: 'code' } }] })]);
    expect((await withKey(service.baseUrl, null).get('/me')).status).toBe(401);
    const chains = await withKey(service.baseUrl, auditor).get('/audit/chains');
    expect(chains).toMatchObject({ status: 200, body: { runs: 0, records: 0, brokenRuns: [], breaks: [] } });
    expect((await withKey(service.baseUrl, auditor).post('/projections/rebuild', {})).status).toBe(403);
  });
});
