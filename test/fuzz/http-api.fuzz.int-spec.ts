/**
 * Property-based requests against the HTTP API, through the real HTTP stack
 * (Node's server, Express, the body parsers and their limit, the API key
 * guard, the validation pipe, the exception filter) of the real application
 * on real stores in a temp folder (see `support/fuzz-service.ts`).
 *
 * Three principals: `alice` and `bob`, each limited to agents of their own,
 * and `ops`, an operator's key for every agent (plus `scraper`, metrics only,
 * and requests without a usable key). Every answer is checked:
 *
 * - never a 5xx (and nothing logged at level error);
 * - a 4xx appends nothing to the run store or the audit store (counted in
 *   their files, not through the service), and a GET never appends;
 * - a 4xx has the documented error body (`statusCode`, `code`, `message`,
 *   no stack), and a 400 names its `field` and its `rule`; a 401 says
 *   `WWW-Authenticate`;
 * - a principal never receives another principal's data: no run id, agent
 *   name or secret input marker of a run it may not read appears in a 2xx
 *   answer (unless it sent that text in the body), nor in any answer unless
 *   it sent it; an event stream opens only for what the key may read;
 * - an accepted run records its input exactly as it was sent, and repeating
 *   a request with an idempotency key replays it and appends nothing;
 * - a non-empty body that is not `application/json` is answered 415.
 *
 * A second property sends the same request naming another principal's real
 * run and a run that never existed: the answers must be the same.
 *
 * Budget: `FUZZ_RUNS` requests for the first property (default 2500) and a
 * tenth of it for the second; `FUZZ_SEED` replays a seed.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { runIdForIdempotencyKey } from '@agent-ledger/runtime';
import type { FuzzService } from './support/fuzz-service';
import { startFuzzService } from './support/fuzz-service';
import type { FuzzKnowledge, FuzzRequest, Sender } from './support/http-arbitraries';
import { approvalBody, authenticatesAs, cancelBody, credentialHeaders, encodedBody, fuzzRequest, inputBody, requeueBody, summary } from './support/http-arbitraries';
import type { Principal, PrincipalName } from './support/principals';
import { AGENTS, apiKeysEnv, fuzzAgentsYaml, makePrincipals } from './support/principals';
import type { RawAnswer } from './support/raw-http';
import { closeConnections, send } from './support/raw-http';
import { scaled } from '../support/time-scale';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const LIMIT_BYTES = 262_144;
const ALL_AGENTS: readonly string[] = [...AGENTS.alice, ...AGENTS.bob, ...AGENTS.ops];

/** JSON text as the body parser reads it: a leading byte-order mark is skipped. */
function withoutBom(text: string): string {
  return text.startsWith('\ufeff') ? text.slice(1) : text;
}

/**
 * Whether `text` mentions the run `id`: anywhere for a long id (a UUID, `ik-...`, `fresh-...`), and for a short
 * one (a client may name a run `p`) only as a JSON string, a step or approval id, a stream name or a word.
 */
function mentionsRun(text: string, id: string): boolean {
  if (id.length >= 12) return text.includes(id);
  return idsIn(text).some((value) => value === id || value.startsWith(`${id}/`) || value === `run-${id}` || value === `audit-${id}`);
}

const ID_KEYS = new Set(['runId', 'stepId', 'approvalId', 'continuationRunId', 'streamName', 'currentStepId', 'inFlightStepId', 'inputStepId']);

/** The values of the id fields of a JSON text (none when it is not JSON), found without recursion. */
function idsIn(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const found: string[] = [];
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (ID_KEYS.has(key) && typeof child === 'string') found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** The agents whose runs a sender may read. */
function readableAgents(sender: Sender): readonly string[] {
  if (sender === 'alice') return AGENTS.alice;
  if (sender === 'bob') return AGENTS.bob;
  if (sender === 'ops') return ALL_AGENTS;
  return [];
}

/** What the suite saw, for the README's figures. */
class Figures {
  requests = 0;
  readonly statuses = new Map<number, number>();
  readonly routes = new Map<string, Map<number, number>>();
  appendsAccepted = 0;
  replaysChecked = 0;
  inputsChecked = 0;
  streamsOpened = 0;
  differentialPairs = 0;

  count(route: string, status: number): void {
    this.requests++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    const byStatus = this.routes.get(route) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.routes.set(route, byStatus);
  }

  report(ms: number): string {
    const statuses = [...this.statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
    const routes = [...this.routes.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([route, byStatus]) => `  ${route}: ${[...byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`)
      .join('\n');
    return (
      `HTTP fuzz: ${this.requests} requests in ${(ms / 1000).toFixed(1)} s (runs ${RUNS}${SEED === undefined ? '' : `, seed ${SEED}`}); statuses ${statuses}\n` +
      `  accepted requests that appended: ${this.appendsAccepted}; idempotent replays checked: ${this.replaysChecked}; recorded inputs checked: ${this.inputsChecked}; ` +
      `event streams opened: ${this.streamsOpened}; foreign/missing pairs: ${this.differentialPairs}\n${routes}`
    );
  }
}

describe('the HTTP API under hostile requests (fuzz)', () => {
  jest.setTimeout(scaled(Math.max(120_000, RUNS * 200)));
  let service: FuzzService;
  let principals: Readonly<Record<PrincipalName, Principal>>;
  /** Every run known to exist, with its agent (from the store). */
  const runAgent = new Map<string, string>();
  /** The secret marker in the input of the fixture's runs, by the run's agent. */
  const markers = new Map<string, string>();
  const figures = new Figures();
  const started = Date.now();

  const knowledge: FuzzKnowledge = {
    runIds: () => [...runAgent.keys()],
    agents: ALL_AGENTS,
    positions: () => {
      const total = service.eventCount().runs;
      return [1, 2, Math.max(1, total - 1), total].map((n) => `${n}:${n}`);
    },
  };

  async function call(request: FuzzRequest): Promise<RawAnswer> {
    const headers = { ...request.headers, ...credentialHeaders(request, (name) => principals[name].key) };
    return send(service.port, { method: request.method, path: request.path, headers, body: request.body });
  }

  async function fixtureRequest(who: PrincipalName, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const answer = await send(service.port, {
      method,
      path,
      headers: { authorization: `Bearer ${principals[who].key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    });
    if (answer.status >= 300) throw new Error(`fixture ${method} ${path}: ${answer.status} ${answer.body}`);
    return JSON.parse(answer.body) as Record<string, unknown>;
  }

  /** Starts a run for the fixture, its input carrying the principal's marker. */
  async function fixtureRun(who: PrincipalName, agent: string, extra: Record<string, unknown> = {}): Promise<string> {
    const answer = await fixtureRequest(who, 'POST', '/runs', { agent, input: `${principals[who].marker} task for ${agent}`, ...extra });
    const runId = answer.runId as string;
    runAgent.set(runId, agent);
    markers.set(agent, principals[who].marker);
    return runId;
  }

  beforeAll(async () => {
    principals = makePrincipals();
    service = await startFuzzService({ agentsYaml: fuzzAgentsYaml(), env: { API_KEYS: apiKeysEnv(principals), HTTP_BODY_LIMIT_BYTES: String(LIMIT_BYTES) } });
    for (const who of ['alice', 'bob'] as const) {
      const [clock, writer, asker] = AGENTS[who];
      await fixtureRun(who, clock, { mode: 'interactive' });
      await fixtureRun(who, writer, { mode: 'interactive' });
      await fixtureRun(who, asker, { mode: 'interactive' });
      await fixtureRun(who, clock);
      await fixtureRun(who, clock, { idempotencyKey: `${who}-fixture-key` });
      const denied = await fixtureRun(who, writer, { mode: 'interactive' });
      await fixtureRequest(who, 'POST', `/runs/${denied}/approval`, { decision: 'deny', reason: `${principals[who].marker} no` });
      const cancelled = await fixtureRun(who, clock);
      await fixtureRequest(who, 'POST', `/runs/${cancelled}/cancel`, { reason: 'fixture' });
    }
    await fixtureRun('ops', AGENTS.ops[0], { mode: 'interactive' });
    expect(service.loggedErrors()).toEqual([]);
  }, scaled(60_000));

  afterAll(async () => {
    closeConnections();
    await service?.close();
    process.stdout.write(`${figures.report(Date.now() - started)}\n`);
  });

  /** The text a sender may see echoed back: what it sent (the path and headers only in an error). */
  function sentText(request: FuzzRequest, withPath: boolean): string {
    let body = request.jsonText ?? request.body?.toString('utf8') ?? '';
    // The run id an idempotency key names is the key's (`ik-` and its hash): a client knows it from its own request.
    try {
      const key = (JSON.parse(withoutBom(body)) as { idempotencyKey?: unknown }).idempotencyKey;
      if (typeof key === 'string') body += `\n${runIdForIdempotencyKey(key)}`;
    } catch {
      // Not JSON: nothing derived.
    }
    if (!withPath) return body;
    let path = request.path;
    try {
      path = decodeURIComponent(request.path);
    } catch {
      // Left as sent.
    }
    return `${body}\n${path}\n${JSON.stringify(request.headers)}`;
  }

  /** The run ids, agent names and markers a sender may not see. */
  function secretsFor(sender: Sender): { ids: string[]; agents: string[]; markers: string[] } {
    const readable = new Set(readableAgents(sender));
    const ids = [...runAgent.entries()].filter(([, agent]) => !readable.has(agent)).map(([id]) => id);
    const agents = ALL_AGENTS.filter((a) => !readable.has(a));
    const hidden = [...markers.entries()].filter(([agent]) => !readable.has(agent)).map(([, m]) => m);
    return { ids, agents, markers: [...new Set(hidden)] };
  }

  /** Every broken property of one answer (empty: all hold). */
  function violations(request: FuzzRequest, answer: RawAnswer, appended: number): string[] {
    const broken: string[] = [];
    const { status } = answer;
    if (status >= 500 || status < 100) broken.push(`status ${status}`);
    if (status >= 400 && appended !== 0) broken.push(`a ${status} appended ${appended} events`);
    if ((request.method === 'GET' || request.method === 'HEAD') && appended !== 0) broken.push(`a ${request.method} appended ${appended} events`);
    const type = String(answer.headers['content-type'] ?? '');
    if (status >= 400 && type.startsWith('application/json') && request.method !== 'HEAD') {
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(answer.body) as Record<string, unknown>;
      } catch {
        broken.push('an error body that is not JSON');
      }
      if (body !== undefined) {
        if (body.statusCode !== status) broken.push(`statusCode ${String(body.statusCode)} in a ${status}`);
        if (typeof body.code !== 'string' || body.code === '') broken.push('an error without a code');
        if (typeof body.message !== 'string') broken.push('an error without a message');
        if (/\n\s+at /.test(answer.body)) broken.push('a stack trace in an error body');
        if (status === 400 && (typeof body.field !== 'string' || body.field === '' || typeof body.rule !== 'string' || body.rule === '')) broken.push('a 400 that names no field or rule');
      }
    } else if (status >= 400 && status !== 431 && request.method !== 'HEAD' && answer.body !== '') {
      broken.push(`an error answered as ${type || 'no content type'}`);
    }
    if (status === 401 && !String(answer.headers['www-authenticate'] ?? '').startsWith('Bearer')) broken.push('a 401 without WWW-Authenticate: Bearer');
    // A body the API cannot read is refused, whatever the route, before anything else looks at the request.
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (request.body !== undefined && request.body.length > 0 && mediaType !== 'application/json' && status !== 415) broken.push(`a ${mediaType || 'typeless'} body answered ${status}, not 415`);

    // Another principal's data.
    const sender = authenticatesAs(request);
    if (sender !== 'ops') {
      const secrets = secretsFor(sender);
      const echoable = sentText(request, status >= 300);
      const text = answer.body;
      for (const marker of secrets.markers) if (text.includes(marker)) broken.push(`${sender} received the input of another principal's run (${marker})`);
      for (const id of secrets.ids) if (mentionsRun(text, id) && !echoable.includes(id)) broken.push(`${sender} received the id of a run it may not read (${id})`);
      for (const agent of secrets.agents) if (text.includes(`"${agent}"`) && !echoable.includes(agent)) broken.push(`${sender} received the name of an agent it may not use (${agent})`);
    }
    if (sender === 'scraper' && status < 300 && !/^\/(metrics|openapi\.json|health|ready)(\?|$)/.test(request.path)) broken.push(`the metrics-only key got ${status} on ${request.path}`);
    if (sender === 'anonymous' && status < 300 && !/^\/(health|ready)(\?|$)/.test(request.path)) broken.push(`a request without a valid key got ${status} on ${request.path}`);

    // Event streams: only what the key may read.
    if (answer.stream) {
      if (status !== 200) broken.push(`an event stream answered ${status}`);
      if (!String(answer.headers['cache-control'] ?? '').includes('no-cache')) broken.push('an event stream without Cache-Control: no-cache');
      const runId = /^\/runs\/([^/?]+)\/events/.exec(request.path)?.[1];
      const readable = readableAgents(sender);
      if (runId !== undefined) {
        const agent = runAgent.get(decodeURIComponent(runId));
        if (agent === undefined || !readable.includes(agent)) broken.push(`${sender} opened the events of run ${runId}`);
      } else if (readable.length !== ALL_AGENTS.length) {
        broken.push(`${sender} opened the events of every run`);
      }
    }
    return broken;
  }

  const describeRequest = summary;

  /** After an accepted POST /runs: the run is known, its input is as sent, a replay of its idempotency key appends nothing. */
  async function checkAcceptedStart(request: FuzzRequest, answer: RawAnswer): Promise<string[]> {
    const broken: string[] = [];
    const runId = (JSON.parse(answer.body) as { runId?: unknown; replayed?: unknown }).runId;
    if (typeof runId !== 'string') return ['an accepted POST /runs without a runId'];
    const recorded = service.runRequested(runId);
    if (recorded === null) return [`an accepted POST /runs whose run ${runId} is not in the store`];
    runAgent.set(runId, recorded.agent);
    const replayed = (JSON.parse(answer.body) as { replayed?: unknown }).replayed === true;
    let sent: { input?: unknown; idempotencyKey?: unknown } | undefined;
    try {
      sent = request.jsonText === undefined ? undefined : (JSON.parse(withoutBom(request.jsonText)) as { input?: unknown; idempotencyKey?: unknown });
    } catch {
      sent = undefined;
    }
    if (sent !== undefined && !replayed) {
      figures.inputsChecked++;
      if (JSON.stringify(recorded.input) !== JSON.stringify(sent.input)) {
        broken.push(`the run recorded the input ${JSON.stringify(recorded.input)?.slice(0, 200)} for ${JSON.stringify(sent.input)?.slice(0, 200)}`);
      }
    }
    if (sent !== undefined && typeof sent.idempotencyKey === 'string') {
      figures.replaysChecked++;
      const before = service.eventCount().total;
      const again = await call(request);
      const appended = service.eventCount().total - before;
      figures.count(`${request.route} (replay)`, again.status);
      if (again.status >= 300 || (JSON.parse(again.body) as { replayed?: unknown }).replayed !== true) broken.push(`the replay of idempotency key answered ${again.status} ${again.body.slice(0, 200)}`);
      if (appended !== 0) broken.push(`the replay of an idempotency key appended ${appended} events`);
    }
    return broken;
  }

  it('never answers 5xx, appends nothing when it refuses, names the refused field, and never shows a principal the runs of another', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest(knowledge, LIMIT_BYTES), async (request) => {
        const errorsBefore = service.loggedErrors().length;
        const before = service.eventCount().total;
        const answer = await call(request);
        const appended = service.eventCount().total - before;
        figures.count(request.route, answer.status);
        if (answer.stream) figures.streamsOpened++;
        if (answer.status < 300 && appended > 0) figures.appendsAccepted++;
        const broken = violations(request, answer, appended);
        if (request.route === 'POST /runs' && answer.status < 300 && request.method === 'POST') broken.push(...(await checkAcceptedStart(request, answer)));
        const logged = service.loggedErrors().slice(errorsBefore);
        if (logged.length > 0) broken.push(`the service logged errors: ${logged.map((e) => `${e.context}: ${e.message.slice(0, 600)}`).join(' | ')}`);
        if (broken.length > 0) {
          throw new Error(`${broken.join('; ')}\nrequest: ${describeRequest(request)}\nanswer: ${answer.status} ${answer.body.slice(0, 600)}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it("answers a request naming another principal's run exactly as one naming a run that never existed", async () => {
    const templates = fc.oneof(
      fc.constantFrom('GET /runs/{id}', 'GET /runs/{id}/steps', 'GET /runs/{id}/events', 'GET /approvals?runId={id}', 'GET /audit/review?runId={id}').map((t) => ({ template: t, body: undefined })),
      fc.tuple(fc.constantFrom('approval', 'input', 'cancel', 'requeue'), fc.nat()).chain(([segment]) => {
        const body = segment === 'approval' ? approvalBody() : segment === 'input' ? inputBody() : segment === 'cancel' ? cancelBody() : requeueBody();
        return encodedBody(body, LIMIT_BYTES).map((encoded) => ({ template: `POST /runs/{id}/${segment}`, body: encoded }));
      }),
    );
    await fc.assert(
      fc.asyncProperty(templates, fc.constantFrom<'alice' | 'bob'>('alice', 'bob'), fc.nat(), async ({ template, body }, sender, pick) => {
        const foreign = secretsFor(sender).ids;
        const foreignId = foreign[pick % foreign.length] as string;
        const missingId = randomUUID();
        const [method, pathTemplate] = template.split(' ') as [string, string];
        const answers: Array<{ status: number; body: string }> = [];
        for (const id of [foreignId, missingId]) {
          const request: FuzzRequest = {
            sender,
            auth: 'bearer',
            otherSender: 'ops',
            method,
            route: template,
            path: pathTemplate.replace('{id}', encodeURIComponent(id)),
            headers: { ...body?.headers, ...(template.endsWith('/events') ? { accept: 'text/event-stream' } : {}) },
            body: body?.body,
            jsonText: body?.jsonText,
          };
          const before = service.eventCount().total;
          const answer = await call(request);
          const appended = service.eventCount().total - before;
          figures.count(`${template} (foreign/missing)`, answer.status);
          const broken = violations(request, answer, appended);
          if (broken.length > 0) throw new Error(`${broken.join('; ')}\nrequest: ${describeRequest(request)}\nanswer: ${answer.status} ${answer.body.slice(0, 400)}`);
          answers.push({ status: answer.status, body: answer.body.split(id).join('<runId>') });
        }
        figures.differentialPairs++;
        expect(answers[0]).toEqual(answers[1]);
      }),
      { numRuns: Math.max(50, Math.round(RUNS / 10)), seed: SEED, endOnFailure: true },
    );
  });

  it('logged no server fault', () => {
    expect(service.loggedErrors()).toEqual([]);
  });
});
