import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import { CONSOLE_CONTENT_SECURITY_POLICY, CONSOLE_SECURITY_HEADERS } from '@agent-ledger/http';

/** An answer to a request sent with its path exactly as written (fetch would normalize `..` and `%2e`). */
interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

function raw(baseUrl: string, method: string, path: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function expectSecurityHeaders(answer: RawAnswer, what: string): void {
  const headers = Object.fromEntries(Object.keys(CONSOLE_SECURITY_HEADERS).map((name) => [name, answer.headers[name.toLowerCase()]]));
  expect({ what, headers }).toEqual({ what, headers: CONSOLE_SECURITY_HEADERS });
}

const INDEX = '<!doctype html><html><head><script type="module" src="/console/assets/index-abc123.js"></script></head><body></body></html>';

describe('the console: static files under /console/', () => {
  const ops = httpTestKey('ops', ['operate']);
  let folder: string;
  let app: HttpTestApp;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-ledger-console-'));
    const dir = join(folder, 'console');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'export const x = 1;\n');
    const files: Record<string, string> = {
      'assets/index-abc123.mjs': 'export {};',
      'assets/index-abc123.css': 'body{}',
      'assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'assets/logo.png': 'png',
      'assets/font.woff2': 'woff2',
      'assets/index-abc123.js.map': '{}',
      'favicon.ico': 'ico',
      'manifest.json': '{}',
      'robots.txt': 'User-agent: *',
      'blob.bin': 'bytes',
      '.env': 'SECRET=1',
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    // Out of the folder, and links to it from inside.
    writeFileSync(join(folder, 'secret.txt'), 'secret');
    symlinkSync(join(folder, 'secret.txt'), join(dir, 'link-out.txt'));
    symlinkSync(folder, join(dir, 'linkdir'));
    // A link inside the folder is served.
    symlinkSync(join(dir, 'robots.txt'), join(dir, 'robots-link.txt'));
    app = await startHttpTestApp({ keys: [ops], env: { CONSOLE_DIR: dir } });
  });
  afterAll(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('serves index.html at /console/ without a key, with the security headers and no-cache', async () => {
    for (const path of ['/console/', '/console/index.html', '/console/?tab=runs']) {
      const answer = await raw(app.baseUrl, 'GET', path);
      expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 200, body: INDEX });
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expectSecurityHeaders(answer, path);
    }
    expect(CONSOLE_SECURITY_HEADERS['Content-Security-Policy']).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it('serves assets as immutable, each with its content type', async () => {
    const expected: Record<string, [string, string]> = {
      '/console/assets/index-abc123.js': ['text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
      '/console/assets/index-abc123.mjs': ['text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
      '/console/assets/index-abc123.css': ['text/css; charset=utf-8', 'public, max-age=31536000, immutable'],
      '/console/assets/logo.svg': ['image/svg+xml', 'public, max-age=31536000, immutable'],
      '/console/assets/logo.png': ['image/png', 'public, max-age=31536000, immutable'],
      '/console/assets/font.woff2': ['font/woff2', 'public, max-age=31536000, immutable'],
      '/console/assets/index-abc123.js.map': ['application/json; charset=utf-8', 'public, max-age=31536000, immutable'],
      '/console/favicon.ico': ['image/x-icon', 'no-cache'],
      '/console/manifest.json': ['application/json; charset=utf-8', 'no-cache'],
      '/console/robots.txt': ['text/plain; charset=utf-8', 'no-cache'],
      '/console/robots-link.txt': ['text/plain; charset=utf-8', 'no-cache'],
      '/console/blob.bin': ['application/octet-stream', 'no-cache'],
    };
    for (const [path, [type, cache]] of Object.entries(expected)) {
      const answer = await raw(app.baseUrl, 'GET', path);
      expect({ path, status: answer.status, type: answer.headers['content-type'], cache: answer.headers['cache-control'] }).toEqual({ path, status: 200, type, cache });
      expectSecurityHeaders(answer, path);
    }
    expect((await raw(app.baseUrl, 'GET', '/console/assets/index-abc123.js')).body).toBe('export const x = 1;\n');
  });

  it('answers HEAD with the headers and no body, and other methods 405', async () => {
    const head = await raw(app.baseUrl, 'HEAD', '/console/assets/index-abc123.js');
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe(String('export const x = 1;\n'.length));
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await raw(app.baseUrl, method, '/console/index.html');
      expect({ method, status: refused.status, allow: refused.headers.allow }).toEqual({ method, status: 405, allow: 'GET, HEAD' });
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
      expectSecurityHeaders(refused, method);
    }
  });

  it('sends / (302) and /console (301) to /console/', async () => {
    const root = await raw(app.baseUrl, 'GET', '/');
    expect({ status: root.status, location: root.headers.location }).toEqual({ status: 302, location: '/console/' });
    expectSecurityHeaders(root, '/');
    const bare = await raw(app.baseUrl, 'GET', '/console');
    expect({ status: bare.status, location: bare.headers.location }).toEqual({ status: 301, location: '/console/' });
    expectSecurityHeaders(bare, '/console');
    expect((await raw(app.baseUrl, 'GET', '/console?x=1')).headers.location).toBe('/console/?x=1');
  });

  it('answers a missing file 404 in the API error shape', async () => {
    const missing = await raw(app.baseUrl, 'GET', '/console/assets/nope-123.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(missing.body)).toEqual({ statusCode: 404, error: 'Not Found', code: 'CONSOLE_FILE_NOT_FOUND', message: 'No such file in the console' });
    expectSecurityHeaders(missing, 'missing');
  });

  it.each([
    '/console/../package.json',
    '/console/assets/../../package.json',
    '/console/%2e%2e/package.json',
    '/console/%2E%2E/%2E%2E/secret.txt',
    '/console/%2e%2e%2fsecret.txt',
    '/console/..%2f..%2fpackage.json',
    '/console/assets/..%5c..%5csecret.txt',
    '/console/%252e%252e/secret.txt',
    '/console/./index.html',
    '/console//etc/passwd',
    '/console/%2fetc%2fpasswd',
    '/console/assets//index-abc123.js',
    '/console/index.html%00.js',
    '/console/%00',
    '/console/.env',
    '/console/%2eenv',
    '/console/link-out.txt',
    '/console/linkdir/secret.txt',
    '/console/assets',
  ])('answers 404 to %s (traversal, absolute, NUL, hidden, links out, folders)', async (path) => {
    const answer = await raw(app.baseUrl, 'GET', path);
    expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    expect(answer.body).not.toMatch(/secret|SECRET|agent-ledger"|root:/);
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 404, code: 'CONSOLE_FILE_NOT_FOUND' });
    expectSecurityHeaders(answer, path);
  });

  it.each(['/console/%', '/console/%E0%A4%A', '/console/assets/%zz.js'])('answers 400 to a malformed percent-encoding (%s), as every route does, before any file is looked up', async (path) => {
    const answer = await raw(app.baseUrl, 'GET', path);
    expect({ path, status: answer.status }).toEqual({ path, status: 400 });
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'MALFORMED_REQUEST', field: 'path' });
  });
});

describe('the console: not built', () => {
  let app: HttpTestApp;
  let warnings: string[];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-console-empty-'));
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    app = await startHttpTestApp({ env: { CONSOLE_DIR: dir } });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts, warns once at boot naming the folder, and answers /console/ 404 CONSOLE_NOT_BUILT', async () => {
    expect(warnings.filter((w) => w.includes('console is not built'))).toEqual([expect.stringContaining(dir)]);
    const answer = await raw(app.baseUrl, 'GET', '/console/');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'CONSOLE_NOT_BUILT', message: expect.stringContaining('npm run build') as string });
    expect(answer.body).not.toContain(dir);
    expectSecurityHeaders(answer, 'not built');
    expect((await app.call('GET', '/health')).status).toBe(200);
  });
});
