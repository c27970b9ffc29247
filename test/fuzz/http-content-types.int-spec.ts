/**
 * Every route of the OpenAPI document, sent every body the API cannot read.
 *
 * The routes are read from the running service's own `GET /openapi.json`
 * (each path and method it lists), so that a route added later is covered
 * without editing this test. Each is sent a non-empty body in each content
 * type below, with a `Content-Length` and chunked (no length), through the
 * real HTTP stack (`support/fuzz-service.ts`). Every answer must be 415
 * `UNSUPPORTED_MEDIA_TYPE` naming the content type received and the one
 * expected, and the head of `$all` of the run store and of the audit store
 * must not move. The path parameters name a real, queued run, so that the 415
 * is not hidden behind a 404: the check comes before any handler.
 *
 * The positive control: a JSON body on the same routes is never answered 415.
 */
import type { FuzzService } from './support/fuzz-service';
import { startFuzzService } from './support/fuzz-service';
import type { Principal, PrincipalName } from './support/principals';
import { apiKeysEnv, fuzzAgentsYaml, makePrincipals } from './support/principals';
import type { RawAnswer } from './support/raw-http';
import { closeConnections, send } from './support/raw-http';

/** A body the API cannot read: its `Content-Type` (none: no header) and its bytes. */
interface UnreadableBody {
  readonly contentType: string | null;
  /** The media type the error must name (`none` when no header was sent). */
  readonly named: string;
  readonly body: string;
}

const JSON_TEXT = '{"reason":"read me"}';

const UNREADABLE_BODIES: readonly UnreadableBody[] = [
  // What fetch() sends for a string body.
  { contentType: 'text/plain;charset=UTF-8', named: 'text/plain', body: JSON_TEXT },
  { contentType: 'text/plain', named: 'text/plain', body: 'reason: read me' },
  { contentType: 'multipart/form-data; boundary=XyZ', named: 'multipart/form-data', body: '--XyZ\r\nContent-Disposition: form-data; name="reason"\r\n\r\nread me\r\n--XyZ--\r\n' },
  { contentType: 'application/x-www-form-urlencoded', named: 'application/x-www-form-urlencoded', body: 'reason=read+me&agent=ops-clock&input=x' },
  { contentType: 'application/xml', named: 'application/xml', body: '<cancel><reason>read me</reason></cancel>' },
  { contentType: 'text/json', named: 'text/json', body: JSON_TEXT },
  { contentType: 'application/vnd.api+json', named: 'application/vnd.api+json', body: JSON_TEXT },
  { contentType: 'application/octet-stream', named: 'application/octet-stream', body: JSON_TEXT },
  { contentType: null, named: 'none', body: JSON_TEXT },
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

/** One operation of the document, its path parameters filled. */
interface Route {
  readonly method: string;
  readonly template: string;
  readonly path: string;
}

describe('every route of the OpenAPI document refuses a body it cannot read (415), and appends nothing', () => {
  jest.setTimeout(120_000);
  let service: FuzzService;
  let principals: Readonly<Record<PrincipalName, Principal>>;
  let routes: readonly Route[];
  const sent = { refused: 0, controls: 0 };

  async function call(method: string, path: string, options: { readonly contentType?: string | null; readonly body?: string; readonly chunked?: boolean } = {}): Promise<RawAnswer> {
    const { contentType = null, body, chunked = false } = options;
    return send(service.port, {
      method,
      path,
      headers: { authorization: `Bearer ${principals.ops.key}`, ...(contentType === null ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : Buffer.from(body, 'utf8'),
      chunked,
    });
  }

  beforeAll(async () => {
    principals = makePrincipals();
    service = await startFuzzService({ agentsYaml: fuzzAgentsYaml(), env: { API_KEYS: apiKeysEnv(principals) } });
    // A queued run (no worker runs: it stays queued) names every path parameter.
    const started = await call('POST', '/runs', { contentType: 'application/json', body: '{"agent":"ops-clock","input":"x"}' });
    expect(started.status).toBe(202);
    const runId = (JSON.parse(started.body) as { runId: string }).runId;
    const document = await call('GET', '/openapi.json');
    expect(document.status).toBe(200);
    const paths = (JSON.parse(document.body) as { paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>> }).paths;
    routes = Object.entries(paths).flatMap(([template, item]) =>
      METHODS.filter((method) => item[method] !== undefined).map((method) => ({
        method: method.toUpperCase(),
        template,
        path: template.replace(/\{[^}]+\}/g, encodeURIComponent(runId)),
      })),
    );
  });

  afterAll(async () => {
    closeConnections();
    await service?.close();
    process.stdout.write(`HTTP content types: ${routes?.length ?? 0} routes of the document, ${UNREADABLE_BODIES.length} content types, 2 framings: ${sent.refused} bodies that are not JSON, ${sent.controls} JSON controls\n`);
  });

  it('reads the routes from the document: the ones that take a body among them', () => {
    const listed = routes.map((route) => `${route.method} ${route.template}`);
    expect(listed.length).toBeGreaterThanOrEqual(20);
    expect(listed).toEqual(expect.arrayContaining(['POST /runs', 'POST /runs/{runId}/cancel', 'POST /runs/{runId}/requeue', 'POST /runs/{runId}/approval', 'POST /runs/{runId}/input', 'POST /projections/rebuild', 'GET /runs/{runId}/events']));
  });

  for (const chunked of [false, true]) {
    it(`answers 415 to every content type on every route, the body sent ${chunked ? 'chunked (no Content-Length)' : 'with a Content-Length'}; the head of $all does not move`, async () => {
      const wrong: string[] = [];
      for (const route of routes) {
        for (const unreadable of UNREADABLE_BODIES) {
          const before = service.allHead();
          const answer = await call(route.method, route.path, { contentType: unreadable.contentType, body: unreadable.body, chunked });
          sent.refused++;
          const after = service.allHead();
          const what = `${route.method} ${route.template} with ${unreadable.contentType ?? 'no Content-Type'}`;
          if (answer.status !== 415) {
            wrong.push(`${what}: ${answer.status} ${answer.body.slice(0, 200)}`);
            continue;
          }
          const body = JSON.parse(answer.body) as Record<string, unknown>;
          if (body.statusCode !== 415 || body.code !== 'UNSUPPORTED_MEDIA_TYPE') wrong.push(`${what}: the body ${answer.body}`);
          if (body.received !== unreadable.named || body.expected !== 'application/json') wrong.push(`${what}: received ${String(body.received)}, expected ${String(body.expected)}`);
          const message = String(body.message);
          if (!message.includes('application/json') || !message.includes(unreadable.contentType === null ? 'no Content-Type' : unreadable.named)) wrong.push(`${what}: the message ${message}`);
          if (after.runs !== before.runs || after.audit !== before.audit) wrong.push(`${what}: $all moved from ${JSON.stringify(before)} to ${JSON.stringify(after)}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(service.loggedErrors()).toEqual([]);
    });
  }

  it('reads a JSON body on the same routes (never 415), with a Content-Length and chunked', async () => {
    const refused: string[] = [];
    for (const route of routes) {
      for (const chunked of [false, true]) {
        for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
          const answer = await call(route.method, route.path, { contentType, body: '{}', chunked });
          sent.controls++;
          if (answer.status === 415 || answer.status >= 500) refused.push(`${route.method} ${route.template} with ${contentType}${chunked ? ', chunked' : ''}: ${answer.status} ${answer.body.slice(0, 200)}`);
        }
      }
    }
    expect(refused).toEqual([]);
    expect(service.loggedErrors()).toEqual([]);
  });
});
