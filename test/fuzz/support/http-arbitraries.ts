/**
 * fast-check arbitraries of hostile HTTP requests against the API: every
 * route and method, unknown routes and methods, random and forged run ids
 * (other principals' real ones included), random query strings, random JSON
 * bodies near the DTOs and far from them (wrong types, unknown fields,
 * `__proto__` / `constructor` keys, deep nesting, numbers that overflow, lone
 * surrogates, sizes around the body limit), random and lying `Content-Type`
 * and `Content-Encoding`, missing and garbage credentials.
 *
 * Bodies are built as JSON *text*, never through `JSON.stringify` of an
 * object, so that a key such as `__proto__` is sent as a key, duplicate keys
 * can be sent, and numbers can be written as `1e400` or `-0`.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { PrincipalName } from './principals';

/** Who a request claims to be. `anonymous`: no usable key. */
export type Sender = PrincipalName | 'anonymous';

/** How the key is presented. */
export type AuthStyle =
  | 'bearer'
  | 'x-api-key'
  | 'lowercase-bearer'
  | 'bearer-with-tabs'
  | 'both-headers'
  | 'key-plus-garbage'
  | 'basic'
  | 'empty-bearer'
  | 'two-tokens'
  | 'long-key'
  | 'none';

/** What the fuzzer knows when it builds requests: the real run ids and agent names of the fixture. */
export interface FuzzKnowledge {
  /** Every run id the fixture and the fuzz created so far (of every principal). */
  runIds(): readonly string[];
  /** Every configured agent name. */
  readonly agents: readonly string[];
  /** The route templates' sample values: positions of real events. */
  positions(): readonly string[];
}

/** A request, before credentials are added (the sender's key is only known to the suite). */
export interface FuzzRequest {
  readonly sender: Sender;
  readonly auth: AuthStyle;
  /** `ops` or a limited key whose key is sent in an `X-API-Key` header besides the bearer one (`both-headers`). */
  readonly otherSender: PrincipalName;
  readonly method: string;
  /** The route template it was built from, for the statistics (`POST /runs/{runId}/approval`, `random path`). */
  readonly route: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** The body's JSON text when it was sent as JSON text (possibly compressed), for the checks. */
  readonly jsonText?: string;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every UTF-8 byte of `text` but the unreserved characters (a lone surrogate becomes U+FFFD's bytes). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Raw bytes, percent-encoded: invalid UTF-8 and truncated sequences included. */
const rawBytesSegment = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

/** Characters people and attackers paste: every plane, lone surrogates, controls, separators, look-alikes. */
const hostileString = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\ud800',
      '\udfff\ud800',
      '\u2028\u2029',
      '\ufeff',
      '..',
      '../..',
      '..\\..\\',
      '%00',
      '${jndi:ldap://x}',
      "'; DROP TABLE events; --",
      '<script>alert(1)</script>',
      'Ａ',
      'ﬁ',
      'e\u0301',
      '\u00e9',
      '\u202e',
      'null',
      'undefined',
      'NaN',
      '__proto__',
      'constructor',
      'prototype',
    ),
    weight: 2,
  },
);

/** A run id: the fixture's real ones (of every principal), fresh valid ones, and garbage. */
export function runIdSegment(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(null).map(() => knowledge.runIds()).chain((ids) => (ids.length === 0 ? fc.constant('none') : fc.constantFrom(...ids))), weight: 8 },
    { arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,30}$/).map((id) => `fresh-${id}`), weight: 2 },
    { arbitrary: fc.integer({ min: 126, max: 140 }).map((n) => `a${'b'.repeat(n - 1)}`), weight: 1 },
    { arbitrary: fc.integer({ min: 200, max: 3000 }).map((n) => 'r'.repeat(n)), weight: 1 },
    { arbitrary: hostileString.map(percentEncode), weight: 3 },
    { arbitrary: rawBytesSegment, weight: 1 },
    { arbitrary: fc.constantFrom('.', '..', '%2e%2e', '..%2F..%2Fetc%2Fpasswd', '%2F', '%5C', 'run-1', '-x', '_x', ':x', 'x%20y', 'x%0Ay'), weight: 1 },
  );
}

/** Run ids in a body: real ids, fresh ids, and values of every JSON type. */
function runIdJson(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return fc.oneof(
    runIdSegment(knowledge).map((segment) => JSON.stringify(safeDecode(segment))),
    jsonValueText(),
  );
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** JSON text of special values a `JSON.stringify` of a JS value never produces. */
const specialJsonText = fc.constantFrom(
  '1e400',
  '-1e400',
  '-0',
  '1e-400',
  '0.1e1',
  '123456789012345678901234567890',
  '9007199254740993',
  '"\\ud800"',
  '"\\udfff\\ud800x"',
  '"\\u0000"',
  '"\\u2028"',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2}',
  '{"toString":1,"valueOf":2,"hasOwnProperty":3}',
  '[]',
  '{}',
  'null',
  'true',
  '""',
);

/** A JSON value as text: fc.jsonValue (ASCII, unicode, or binary strings), or a special value, or a deep nest. */
export function jsonValueText(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)), weight: 5 },
    { arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }).map((v) => JSON.stringify(v)), weight: 2 },
    { arbitrary: specialJsonText, weight: 3 },
    { arbitrary: deepNest(), weight: 1 },
  );
}

/** `[[[...]]]` or `{"a":{"a":...}}` around a value, from shallow to far deeper than any stack. */
export function deepNest(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.oneof(fc.integer({ min: 1, max: 140 }), fc.constantFrom(126, 127, 128, 129, 255, 256, 257, 1000, 2000, 5000, 20_000, 60_000)),
      fc.constantFrom('array', 'object', 'mixed'),
    )
    .map(([depth, kind]) => {
      if (kind === 'array') return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
      if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      return `${'[{"a":'.repeat(Math.ceil(depth / 2))}1${'}]'.repeat(Math.ceil(depth / 2))}`;
    });
}

/** Key and value-text pairs of a JSON object. */
type Entries = Array<readonly [string, string]>;

/** A JSON object's text from key/value-text pairs (keys as they are: duplicates and `__proto__` included). */
function objectText(entries: ReadonlyArray<readonly [string, string]>): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

/** A field of a DTO: sometimes left out, sometimes of the right shape, sometimes any JSON at all. */
function field(name: string, good: fc.Arbitrary<string>, goodWeight = 6): fc.Arbitrary<Entries> {
  return fc.oneof(
    { arbitrary: good.map((v): Entries => [[name, v]]), weight: goodWeight },
    { arbitrary: jsonValueText().map((v): Entries => [[name, v]]), weight: 2 },
    { arbitrary: fc.constant<Entries>([]), weight: 2 },
  );
}

/** Unknown fields, and the keys that walk prototypes. */
const extraFields: fc.Arbitrary<Entries> = fc.oneof(
  { arbitrary: fc.constant<Entries>([]), weight: 8 },
  {
    arbitrary: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'decidedBy', 'status', 'priority', ''), fc.string({ maxLength: 12 })),
        jsonValueText(),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    weight: 2,
  },
);

function dtoBody(fields: ReadonlyArray<fc.Arbitrary<Entries>>): fc.Arbitrary<string> {
  return fc
    .tuple(fc.tuple(...fields), extraFields, fc.boolean())
    .chain(([parts, extra, shuffle]) => {
      const entries = [...parts.flat(), ...extra];
      return shuffle ? fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }) : fc.constant(entries);
    })
    .map(objectText);
}

const str = (arb: fc.Arbitrary<string>) => arb.map((s) => JSON.stringify(s));

/** The body of `POST /runs`: well-formed (any agent, any input), or hostile. */
export function startRunBody(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  const wellFormed = fc
    .record(
      {
        agent: fc.constantFrom(...knowledge.agents).map((a) => JSON.stringify(a)),
        input: jsonValueText(),
        mode: fc.constantFrom('"queued"', '"interactive"'),
        idempotencyKey: fc.oneof(fc.stringMatching(/^[!-~][ -~]{0,40}$/), fc.constantFrom('k1', 'k2', 'same-key')).map((k) => JSON.stringify(k)),
        runId: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,30}$/).map((id) => JSON.stringify(`fresh-${id}`)),
      },
      { requiredKeys: ['agent', 'input'] },
    )
    .filter((body) => body.idempotencyKey === undefined || body.runId === undefined)
    .map((body) => objectText(Object.entries(body).filter((entry): entry is [string, string] => entry[1] !== undefined)));
  return fc.oneof({ arbitrary: wellFormed, weight: 2 }, { arbitrary: hostileStartRunBody(knowledge), weight: 3 });
}

function hostileStartRunBody(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return dtoBody([
    field('agent', str(fc.oneof({ arbitrary: fc.constantFrom(...knowledge.agents), weight: 8 }, { arbitrary: hostileString, weight: 1 })), 10),
    field('input', jsonValueText(), 10),
    field('mode', str(fc.constantFrom('queued', 'interactive', 'Interactive', 'later', ''))),
    fc.oneof({ arbitrary: fc.constant<Entries>([]), weight: 6 }, { arbitrary: runIdJson(knowledge).map((v): Entries => [['runId', v]]), weight: 2 }),
    fc.oneof(
      { arbitrary: fc.constant<Entries>([]), weight: 5 },
      { arbitrary: str(fc.oneof(fc.stringMatching(/^[!-~][ -~]{0,40}$/), hostileString, fc.constant('k'.repeat(256)))).map((v): Entries => [['idempotencyKey', v]]), weight: 3 },
    ),
  ]);
}

/** The body of `POST /runs/{runId}/approval`. */
export function approvalBody(): fc.Arbitrary<string> {
  return dtoBody([
    field('decision', str(fc.constantFrom('approve', 'deny', 'APPROVE', 'yes', '')), 10),
    field('reason', str(fc.oneof(hostileString, fc.integer({ min: 495, max: 505 }).map((n) => 'r'.repeat(n))))),
    field('round', fc.oneof(fc.integer({ min: -2, max: 22 }).map(String), fc.constantFrom('1.5', '1e400', '"1"', '-0', '0x1', '1e0'))),
    field('decidedBy', str(fc.constant('mallory')), 1),
  ]);
}

/** The body of `POST /runs/{runId}/input`. */
export function inputBody(): fc.Arbitrary<string> {
  return dtoBody([field('input', jsonValueText(), 10)]);
}

/** The body of `POST /runs/{runId}/cancel`. */
export function cancelBody(): fc.Arbitrary<string> {
  // requestedBy is refused (who asks is the caller's key): sent now and then, as an attacker would.
  return dtoBody([field('reason', str(hostileString), 3), field('requestedBy', str(fc.oneof(hostileString, fc.constant('someone-else'))), 1)]);
}

/** The body of `POST /runs/{runId}/requeue`. */
export function requeueBody(): fc.Arbitrary<string> {
  const resolution = dtoBody([
    field('outcome', str(fc.constantFrom('executed', 'notExecuted', 'maybe'))),
    field('note', str(fc.oneof(hostileString, fc.constant('n'.repeat(2001))))),
  ]);
  return dtoBody([
    // requestedBy is refused (who requeues is the caller's key): sent now and then, as an attacker would.
    field('requestedBy', str(hostileString), 1),
    field('reason', str(hostileString), 3),
    fc.oneof({ arbitrary: fc.constant<Entries>([]), weight: 3 }, { arbitrary: resolution.map((v): Entries => [['resolution', v]]), weight: 3 }, { arbitrary: jsonValueText().map((v): Entries => [['resolution', v]]), weight: 1 }),
  ]);
}

/** A query string (with its `?`), from a route's parameters, unknown ones, prototype keys, brackets and repeats. */
export function queryString(known: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const names = Object.keys(known);
  const pair = fc.oneof(
    { arbitrary: fc.constantFrom(...names).chain((name) => (known[name] as fc.Arbitrary<string>).map((value) => `${name}=${value}`)), weight: 8 },
    {
      arbitrary: fc
        .tuple(fc.oneof(fc.constantFrom(...names, '__proto__', 'constructor', 'colour', 'runId[]', 'agent[a]', 'a[__proto__][b]', 'limit[$gt]'), hostileString.map(percentEncode)), hostileString.map(percentEncode))
        .map(([k, v]) => `${k}=${v}`),
      weight: 2,
    },
    { arbitrary: fc.constantFrom('&', '=', '==', 'a', '%', '%zz', '&&&'), weight: 1 },
  );
  return fc.oneof({ arbitrary: fc.constant(''), weight: 2 }, { arbitrary: fc.array(pair, { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.join('&')}`), weight: 6 });
}

const anyValue = fc.oneof(hostileString.map(percentEncode), rawBytesSegment, fc.constant(''));
const instant = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 53 }).map(String),
  fc.date({ noInvalidDate: true }).map((d) => percentEncode(d.toISOString())),
  fc.constantFrom('9999999999999999', '99999999999999999', '2026-13-45T00:00:00Z', '0000-01-01', '1e3', 'yesterday', '-1', '2026-01-01T00:00:00%2B25:00'),
  anyValue,
);
const limit = fc.oneof(fc.integer({ min: -2, max: 100_002 }).map(String), fc.constantFrom('1e3', '1.5', '0x10', 'NaN', 'Infinity', ''), anyValue);
const cursor = fc.oneof(fc.base64String({ maxLength: 60 }).map(percentEncode), fc.constantFrom('WzEsMl0', 'eyJ4IjoxfQ', 'W10', 'bnVsbA'), anyValue);

/** The query of `GET /runs`. */
export function runsQuery(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return queryString({
    status: fc.oneof(fc.constantFrom('QUEUED', 'RUNNING', 'WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT', 'COMPLETED', 'FAILED', 'CANCELLED', 'queued'), anyValue),
    reason: fc.oneof(fc.constantFrom('COMPLETED', 'AUDIT_PERSISTENCE_FAILED', 'NOT_RETRYABLE', 'APPROVAL_DENIED'), anyValue),
    agent: fc.oneof(fc.constantFrom(...knowledge.agents), anyValue),
    since: instant,
    until: instant,
    limit,
    cursor,
  });
}

/** The query of `GET /approvals`. */
export function approvalsQuery(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return queryString({
    state: fc.oneof(fc.constantFrom('pending', 'approved', 'denied', 'cancelled', 'PENDING'), anyValue),
    agent: fc.oneof(fc.constantFrom(...knowledge.agents), anyValue),
    runId: runIdSegment(knowledge),
    since: instant,
    until: instant,
    limit,
    cursor,
  });
}

/** The query of `GET /audit/review`. */
export function auditQuery(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return queryString({ runId: runIdSegment(knowledge), limit });
}

/** The query of the event streams. */
export function eventsQuery(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return queryString({ after: position(knowledge).map(percentEncode) });
}

function position(knowledge: FuzzKnowledge): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(null).map(() => knowledge.positions()).chain((p) => (p.length === 0 ? fc.constant('1:1') : fc.constantFrom(...p))),
    fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}:${b}`),
    fc.constantFrom('0:0', '-1:-1', '1.5:1', '99999999999999999999:1', '1e400:1', ':', '1:', ':1', '1:1:1', 'x'),
    hostileString,
  );
}

/** A body, a Content-Type and a Content-Encoding for a route that takes a body. */
export interface EncodedBody {
  readonly body?: Buffer;
  readonly jsonText?: string;
  readonly headers: Readonly<Record<string, string>>;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=klingon',
  'application/json; charset="',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  'x/y;;;=',
  '',
];

/**
 * Encodes a body's JSON text the hostile ways: as is (mostly), near and over
 * the size limit, as another media type, compressed or claiming to be,
 * truncated, prefixed with a BOM, or not JSON at all.
 */
export function encodedBody(jsonText: fc.Arbitrary<string>, limitBytes: number): fc.Arbitrary<EncodedBody> {
  const json = (text: string, headers: Record<string, string> = {}): EncodedBody => ({ body: Buffer.from(text, 'utf8'), jsonText: text, headers: { 'content-type': 'application/json', ...headers } });
  return fc.oneof<Array<fc.WeightedArbitrary<EncodedBody>>>(
    { arbitrary: jsonText.map((t) => json(t)), weight: 20 },
    {
      arbitrary: fc.tuple(jsonText, fc.constantFrom(...CONTENT_TYPES)).map(([t, type]): EncodedBody => ({ body: Buffer.from(t, 'utf8'), jsonText: type.toLowerCase().includes('json') ? t : undefined, headers: type === '' ? {} : { 'content-type': type } })),
      weight: 4,
    },
    {
      // Sizes around the limit: the padding goes into an unknown field, or into the input.
      arbitrary: fc.tuple(jsonText, fc.integer({ min: -3, max: 3 }), fc.constantFrom('pad', 'input')).map(([t, delta, where]) => {
        const base = t.startsWith('{') && t.length > 2 ? t.slice(1, -1) : '"x":1';
        const frame = `{"${where}":"","keep":0${base.length > 0 ? `,${base}` : ''}}`;
        const padding = Math.max(0, limitBytes + delta - Buffer.byteLength(frame, 'utf8'));
        return json(frame.replace(`"${where}":""`, `"${where}":"${'p'.repeat(padding)}"`));
      }),
      weight: 1,
    },
    { arbitrary: fc.integer({ min: 2, max: 6 }).map((m) => json(`{"input":"${'é'.repeat((limitBytes * m) / 2)}"}`)), weight: 1 },
    { arbitrary: jsonText.map((t) => ({ body: gzipSync(Buffer.from(t, 'utf8')), jsonText: t, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })), weight: 1 },
    { arbitrary: fc.constant(null).map(() => ({ body: gzipSync(Buffer.alloc(limitBytes * 8, 0x20)), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })), weight: 1 },
    {
      arbitrary: fc.tuple(jsonText, fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'bogus', 'gzip, gzip')).map(([t, encoding]) => ({ body: Buffer.from(t, 'utf8'), jsonText: encoding === 'identity' ? t : undefined, headers: { 'content-type': 'application/json', 'content-encoding': encoding } })),
      weight: 1,
    },
    { arbitrary: fc.tuple(jsonText, fc.nat()).map(([t, n]) => ({ body: Buffer.from(t.slice(0, n % Math.max(1, t.length)), 'utf8'), headers: { 'content-type': 'application/json' } })), weight: 1 },
    { arbitrary: jsonText.map((t) => json(`\ufeff${t}`)), weight: 1 },
    {
      arbitrary: fc.oneof(
        fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
        fc.constantFrom('', ' ', 'null', '[]', '[1,2]', '"x"', '1', 'true', '{', '{"agent":', 'agent=x&input=y', '\u0000').map((t) => Buffer.from(t, 'utf8')),
      ).map((body) => ({ body, jsonText: undefined, headers: { 'content-type': 'application/json' } })),
      weight: 2,
    },
    { arbitrary: fc.constant({ headers: {} } as EncodedBody), weight: 1 },
  );
}

/** One route of the API (or none), with its method, path and body. */
interface RouteRequest {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly encoded?: EncodedBody;
  readonly headers?: Record<string, string>;
}

const OTHER_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'get'];

/** Every route of the API, with hostile parameters. */
export function routeRequest(knowledge: FuzzKnowledge, limitBytes: number): fc.Arbitrary<RouteRequest> {
  const id = runIdSegment(knowledge);
  const withBody = (route: string, segment: string, body: fc.Arbitrary<string>) =>
    fc.tuple(id, encodedBody(body, limitBytes)).map(([runId, encoded]) => ({ route: `POST /runs/{runId}/${segment}`, method: 'POST', path: `/runs/${runId}/${segment}`, encoded }));
  const lastEventId = fc.option(position(knowledge).filter((p) => /^[\x20-\x7e]*$/.test(p)), { nil: undefined });
  return fc.oneof(
    { arbitrary: encodedBody(startRunBody(knowledge), limitBytes).map((encoded) => ({ route: 'POST /runs', method: 'POST', path: '/runs', encoded })), weight: 14 },
    { arbitrary: runsQuery(knowledge).map((q) => ({ route: 'GET /runs', method: 'GET', path: `/runs${q}` })), weight: 6 },
    { arbitrary: id.map((runId) => ({ route: 'GET /runs/{runId}', method: 'GET', path: `/runs/${runId}` })), weight: 6 },
    { arbitrary: id.map((runId) => ({ route: 'GET /runs/{runId}/steps', method: 'GET', path: `/runs/${runId}/steps` })), weight: 4 },
    { arbitrary: withBody('approval', 'approval', approvalBody()), weight: 6 },
    { arbitrary: withBody('input', 'input', inputBody()), weight: 5 },
    { arbitrary: withBody('cancel', 'cancel', cancelBody()), weight: 3 },
    { arbitrary: withBody('requeue', 'requeue', requeueBody()), weight: 3 },
    {
      arbitrary: fc.tuple(id, eventsQuery(knowledge), lastEventId).map(([runId, q, last]) => ({
        route: 'GET /runs/{runId}/events',
        method: 'GET',
        path: `/runs/${runId}/events${q}`,
        headers: { accept: 'text/event-stream', ...(last === undefined ? {} : { 'last-event-id': last }) },
      })),
      weight: 3,
    },
    { arbitrary: fc.tuple(eventsQuery(knowledge), lastEventId).map(([q, last]) => ({ route: 'GET /events', method: 'GET', path: `/events${q}`, headers: { accept: 'text/event-stream', ...(last === undefined ? {} : { 'last-event-id': last }) } })), weight: 2 },
    { arbitrary: approvalsQuery(knowledge).map((q) => ({ route: 'GET /approvals', method: 'GET', path: `/approvals${q}` })), weight: 4 },
    { arbitrary: auditQuery(knowledge).map((q) => ({ route: 'GET /audit/review', method: 'GET', path: `/audit/review${q}` })), weight: 3 },
    { arbitrary: fc.constantFrom('/projections', '/metrics', '/openapi.json', '/health', '/ready').map((path) => ({ route: `GET ${path}`, method: 'GET', path })), weight: 3 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...OTHER_METHODS), fc.constantFrom('/runs', '/runs/{runId}', '/runs/{runId}/approval', '/approvals', '/events', '/health'), id)
        .map(([method, template, runId]) => ({ route: `${method} (other method)`, method, path: template.replace('{runId}', runId) })),
      weight: 2,
    },
    {
      arbitrary: fc
        .oneof(
          fc.webPath(),
          fc.array(fc.oneof(hostileString.map(percentEncode), fc.constantFrom('..', '.', 'runs', '%2e%2e', '')), { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
          fc.constantFrom('//runs', '/runs/', '/RUNS', '/runs/x/steps/../../runs', '/runs/%2e%2e/approvals', '/runs?', '/runs#x', '/%2e%2e/%2e%2e/etc/passwd', '/openapi.json/..', '/health%00'),
        )
        .filter((path) => path.startsWith('/'))
        .chain((path) => fc.constantFrom('GET', 'POST').map((method) => ({ route: 'random path', method, path }))),
      weight: 2,
    },
  );
}

/** A whole request: route, sender, credentials style, extra headers. */
export function fuzzRequest(knowledge: FuzzKnowledge, limitBytes: number): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      routeRequest(knowledge, limitBytes),
      fc.oneof({ arbitrary: fc.constantFrom<Sender>('alice', 'bob'), weight: 8 }, { arbitrary: fc.constantFrom<Sender>('ops', 'scraper', 'anonymous'), weight: 3 }),
      fc.oneof(
        { arbitrary: fc.constant<AuthStyle>('bearer'), weight: 14 },
        { arbitrary: fc.constant<AuthStyle>('x-api-key'), weight: 3 },
        { arbitrary: fc.constantFrom<AuthStyle>('lowercase-bearer', 'bearer-with-tabs', 'both-headers', 'key-plus-garbage', 'basic', 'empty-bearer', 'two-tokens', 'long-key', 'none'), weight: 3 },
      ),
      fc.constantFrom<PrincipalName>('alice', 'bob', 'ops'),
      fc.oneof(
        { arbitrary: fc.constant({}), weight: 8 },
        {
          arbitrary: fc.record(
            { accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'text/event-stream'), 'x-forwarded-for': fc.constantFrom('1.2.3.4', '127.0.0.1, 10.0.0.1'), 'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'GET') },
            { requiredKeys: [] },
          ),
          weight: 2,
        },
      ),
    )
    .map(([route, sender, auth, otherSender, extra]) =>
      summarised({
        sender,
        auth: sender === 'anonymous' ? 'none' : auth,
        otherSender,
        method: route.method,
        route: route.route,
        path: route.path,
        headers: { ...extra, ...route.headers, ...route.encoded?.headers },
        body: route.encoded?.body,
        jsonText: route.encoded?.jsonText,
      }),
    );
}

/** A request as one line of at most a few hundred characters (a counterexample's body may be 256 KiB). */
export function summary(request: FuzzRequest): string {
  const body = request.jsonText ?? request.body?.toString('utf8');
  const shown = body === undefined ? '' : ` body(${request.body?.length ?? 0} bytes): ${body.length > 300 ? `${body.slice(0, 300)}...` : body}`;
  return `${request.sender} (${request.auth}) ${request.method} ${request.path.length > 300 ? `${request.path.slice(0, 300)}...` : request.path} ${JSON.stringify(request.headers)}${shown}`;
}

/** Gives a request fast-check's `toString` (for its reports) as its {@link summary}. */
export function summarised<T extends FuzzRequest>(request: T): T {
  Object.defineProperty(request, fc.toStringMethod, { value: () => summary(request), enumerable: false });
  return request;
}

/** The credentials headers for a request, from the senders' keys. */
export function credentialHeaders(request: FuzzRequest, keyOf: (name: PrincipalName) => string): Record<string, string> {
  if (request.sender === 'anonymous' || request.auth === 'none') return {};
  const key = keyOf(request.sender);
  switch (request.auth) {
    case 'bearer':
      return { authorization: `Bearer ${key}` };
    case 'x-api-key':
      return { 'x-api-key': key };
    case 'lowercase-bearer':
      return { authorization: `bearer ${key}` };
    case 'bearer-with-tabs':
      return { authorization: `Bearer\t${key}\t` };
    case 'both-headers':
      // The bearer wins; the other key must not widen what the request may do.
      return { authorization: `Bearer ${key}`, 'x-api-key': keyOf(request.otherSender) };
    case 'key-plus-garbage':
      return { authorization: `Bearer ${key}x` };
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` };
    case 'empty-bearer':
      return { authorization: 'Bearer ' };
    case 'two-tokens':
      return { authorization: `Bearer ${key} ${key}` };
    case 'long-key':
      return { authorization: `Bearer ${key}${'k'.repeat(600)}` };
  }
}

/** Whether the credentials are those of `sender`, presented as the API accepts them. */
export function authenticatesAs(request: FuzzRequest): Sender {
  if (request.sender === 'anonymous') return 'anonymous';
  return ['bearer', 'x-api-key', 'lowercase-bearer', 'bearer-with-tabs', 'both-headers'].includes(request.auth) ? request.sender : 'anonymous';
}
