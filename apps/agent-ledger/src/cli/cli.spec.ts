import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliOutput } from './cli-output';
import { eventLine } from './event-format';
import { baseUrlOf } from './service-client';
import type { CliDeps } from './main';
import { runCli } from './main';
import { parseInput } from './runs.commands';
import { serviceEntry } from './serve.command';
import { ownVersion } from './own-version';

function capture(): CliOutput & { lines: string[]; errors: string[]; text(): string; errText(): string } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), isTTY: false, text: () => lines.join('\n'), errText: () => errors.join('\n') };
}

interface Call {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  /** The request's signal (not enumerable: the tests compare calls with toEqual). */
  readonly signal?: AbortSignal;
}

type Reply = Response | Error | ((call: Call) => Response | Error);

/** A fetch that answers from a list of replies, in order, and records the requests. */
function fakeFetch(...replies: Reply[]): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    const call: Call = { url: String(input), method: init?.method ?? 'GET', headers, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined };
    Object.defineProperty(call, 'signal', { value: init?.signal ?? undefined, enumerable: false });
    calls.push(call);
    let reply = replies.shift();
    if (reply === undefined) throw new Error(`unexpected request ${call.method} ${call.url}`);
    if (typeof reply === 'function') reply = reply(call);
    if (reply instanceof Error) throw reply;
    return reply;
  };
  return { fetch: fetchFn as typeof fetch, calls };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function refused(): Error {
  return Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), { code: 'ECONNREFUSED' }) });
}

const ENV = { AGENT_LEDGER_URL: 'http://svc.test:8080' };

function frame(position: string, type: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}): string {
  return `id: ${position}\nevent: ${type}\ndata: ${JSON.stringify({ type, streamName: 'run-r1', revision: 0, position, data: { runId: 'r1', ...data }, metadata, created: '2026-11-30T00:00:00.000Z' })}\n\n`;
}

/** An SSE body that sends `chunks`, then ends (or stays open when `open`); like fetch's, it fails when the request's `signal` aborts. */
function sse(chunks: readonly string[], options: { open?: boolean; signal?: AbortSignal } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (options.open !== true) controller.close();
      options.signal?.addEventListener('abort', () => {
        try {
          controller.error(new DOMException('This operation was aborted', 'AbortError'));
        } catch {
          // Closed already: nothing to abort.
        }
      });
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** Quick retries, giving up after 3 connections in a row without an event: for the tests that expect the give-up. */
const FAST: CliDeps['follow'] = { retryDelayMs: 1, maxRetryDelayMs: 4, maxAttempts: 3 };
/** Quick retries that do not give up within a test. */
const PATIENT: CliDeps['follow'] = { retryDelayMs: 1, maxRetryDelayMs: 4, maxAttempts: 50 };

/** A row of `GET /runs/{runId}/steps`: a completed tool call (`outcome`), or a model call. */
function stepRow(stepId: string, toolName: string | null, outcome: string): Record<string, unknown> {
  const [round, call] = (/r(\d+)(?:\/t(\d+))?$/.exec(stepId) ?? []).slice(1).map((n) => (n === undefined ? null : Number(n)));
  return {
    stepId, runId: 'r1', round, callIndex: call ?? null, kind: toolName === null ? 'llm' : 'tool', toolName, effect: toolName === null ? null : 'READ_ONLY', idempotencyKey: null,
    status: 'completed', outcome, starts: outcome === 'denied' ? 0 : 1, attempt: 1, firstStartedAt: 1, lastStartedAt: 1, completedAt: 2, errorClass: null, errorMessage: null,
    auditState: 'notRequired', auditSequence: null, auditOutcome: null, auditRecordedAt: null, gapDetectedAt: null, approval: outcome === 'denied' ? 'denied' : null,
  };
}

/** Answers by the request's path: the steps, the run's events (an SSE body that stays open), the approvals. */
function byPath(replies: { steps?: readonly Record<string, unknown>[]; events?: readonly string[]; eventsEnd?: boolean; approvals?: unknown }): (call: Call) => Response {
  return (call) => {
    if (call.url.endsWith('/steps')) return json(200, { runId: 'r1', steps: replies.steps ?? [] });
    if (call.url.endsWith('/events')) return sse(replies.events ?? [], { open: replies.eventsEnd !== true, signal: call.signal });
    if (call.url.includes('/approvals')) return json(200, replies.approvals ?? { approvals: [], nextCursor: null });
    return json(404, { statusCode: 404, code: 'NOT_FOUND', message: `no ${call.url}` });
  };
}

describe('agent-ledger CLI: command line', () => {
  it('prints the usage with exit 2 when no command is given, and 0 for --help', async () => {
    const none = capture();
    expect(await runCli([], none, {})).toBe(2);
    expect(none.text()).toContain('runs start');
    const help = capture();
    expect(await runCli(['--help'], help, {})).toBe(0);
    expect(help.text()).toMatch(/4 the service refused the request/);
  });

  it('--help of a verb and of a group exit 0 and name the options', async () => {
    const verb = capture();
    expect(await runCli(['runs', 'start', '--help'], verb, {})).toBe(0);
    expect(verb.text()).toContain('--idempotency-key');
    expect(verb.text()).toContain('AGENT_LEDGER_API_KEY');
    const group = capture();
    expect(await runCli(['events', '--help'], group, {})).toBe(0);
    expect(group.text()).toContain('agent-ledger events follow <runId>');
  });

  it.each([
    [['frobnicate']],
    [['runs']],
    [['runs', 'frobnicate']],
    [['runs', 'get']],
    [['runs', 'get', 'a', 'b']],
    [['runs', 'start', '--input', 'x']],
    [['runs', 'start', '--agent', 'a', '--input', 'x', '--mode', 'batch']],
    [['runs', 'list', '--status', 'DONE']],
    [['runs', 'list', '--limit', 'ten']],
    [['runs', 'list', '--colour']],
    [['runs', 'list', '--url', 'ftp://x']],
    [['runs', 'get', 'r1', '--timeout', '-1']],
    [['worker', '--concurrency', 'many']],
    [['audit', 'verify', 'extra']],
    [['runs', 'approve']],
    [['runs', 'approve', 'r1', '--round', 'two']],
    [['runs', 'deny', 'r1', '--round', '-1']],
    [['runs', 'deny', 'r1', '--decision', 'approve']],
    [['runs', 'input', 'r1']],
    [['runs', 'input', 'r1', '--input', 'notes.txt']],
    [['approvals']],
    [['approvals', 'list', '--state', 'open']],
    [['approvals', 'list', '--limit', 'ten']],
    [['approvals', 'list', 'extra']],
    [['agents']],
    [['agents', 'list', 'extra']],
  ])('exits 2 on a wrong command line: %j', async (argv) => {
    const { fetch, calls } = fakeFetch();
    const output = capture();
    expect(await runCli(argv, output, ENV, { fetch })).toBe(2);
    expect(output.errText()).toMatch(/Usage/);
    expect(calls).toHaveLength(0);
  });

  it('--version and -v print the version of the agent-ledger package, exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      const output = capture();
      expect(await runCli([flag], output, {})).toBe(0);
      expect(output.lines).toEqual([ownVersion()]);
      expect(output.lines[0]).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  it("an unknown option is exit 2 naming it and the verb's own options", async () => {
    const listed = capture();
    expect(await runCli(['runs', 'list', '--colour'], listed, ENV)).toBe(2);
    expect(listed.errors[0]).toBe(
      "Unknown option '--colour': the options of agent-ledger runs list are --status, --agent, --limit, --cursor, --json, --url, --timeout (and --help)\n\nUsage: agent-ledger runs list " +
        listed.errors[0]?.split('Usage: agent-ledger runs list ')[1],
    );
    const one = capture();
    expect(await runCli(['init', '--force'], one, ENV)).toBe(2);
    expect(one.errText()).toContain("Unknown option '--force': the options of agent-ledger init are --mcp (and --help)");
  });

  it('refuses an API key on the command line, pointing to AGENT_LEDGER_API_KEY', async () => {
    for (const option of ['--api-key=secret', '--token']) {
      const output = capture();
      expect(await runCli(['runs', 'list', option, 'secret'], output, ENV)).toBe(2);
      expect(output.errText()).toContain('AGENT_LEDGER_API_KEY');
      expect(output.errText()).not.toContain('secret');
    }
  });

  it('the base URL: --url, else AGENT_LEDGER_URL, else 127.0.0.1 on PORT or 3000', async () => {
    expect(await baseUrlOf('http://a:1/', { AGENT_LEDGER_URL: 'http://b:2' })).toBe('http://a:1');
    expect(await baseUrlOf(undefined, { AGENT_LEDGER_URL: 'https://b:2/base/' })).toBe('https://b:2/base');
    expect(await baseUrlOf(undefined, { PORT: '4000' })).toBe('http://127.0.0.1:4000');
    expect(await baseUrlOf(undefined, { PORT: '0' })).toBe('http://127.0.0.1:3000');
    expect(await baseUrlOf(undefined, {})).toBe('http://127.0.0.1:3000');
    expect(await baseUrlOf(undefined, { PORT: 'eighty' })).toBe('http://127.0.0.1:3000');
    // The configuration file's server.port, unless PORT is set.
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-cli-port-'));
    try {
      writeFileSync(join(dir, 'agent-ledger.yaml'), 'server:\n  port: 4100\nstore:\n  dataDir: ./data\n');
      expect(await baseUrlOf(undefined, { AGENT_LEDGER_CONFIG: join(dir, 'agent-ledger.yaml') })).toBe('http://127.0.0.1:4100');
      expect(await baseUrlOf(undefined, { AGENT_LEDGER_CONFIG: join(dir, 'agent-ledger.yaml'), PORT: '4200' })).toBe('http://127.0.0.1:4200');
      expect(await baseUrlOf(undefined, { AGENT_LEDGER_CONFIG: join(dir, 'missing.yaml') })).toBe('http://127.0.0.1:3000');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--input is JSON when it parses as JSON, text otherwise', () => {
    expect(parseInput('{"task":"x"}')).toEqual({ task: 'x' });
    expect(parseInput('42')).toBe(42);
    expect(parseInput('"quoted"')).toBe('quoted');
    expect(parseInput('Write the report')).toBe('Write the report');
  });

  it('serve runs the service entry beside the CLI, built or from sources', () => {
    expect(serviceEntry('/app/node_modules/agent-ledger/dist/cli/main.js')).toBe('/app/node_modules/agent-ledger/dist/main.js');
    expect(serviceEntry('/repo/apps/agent-ledger/src/cli/main.ts')).toBe('/repo/apps/agent-ledger/src/main.ts');
  });
});

describe('agent-ledger CLI: runs', () => {
  it('runs start: POST /runs with the input as JSON, the API key as a bearer token, and a summary', async () => {
    const { fetch, calls } = fakeFetch(json(202, { runId: 'r1', mode: 'queued', status: 'QUEUED', replayed: false }));
    const output = capture();
    const code = await runCli(['runs', 'start', '--agent', 'file-clerk', '--input', '{"task":"report"}', '--idempotency-key', 'k-1'], output, { ...ENV, AGENT_LEDGER_API_KEY: 'key-123' }, { fetch });
    expect(code).toBe(0);
    expect(calls).toEqual([
      {
        url: 'http://svc.test:8080/runs',
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer key-123' },
        body: { agent: 'file-clerk', input: { task: 'report' }, mode: 'queued', idempotencyKey: 'k-1' },
      },
    ]);
    expect(output.text()).toMatch(/^run\s+r1$/m);
    expect(output.text()).toMatch(/^status\s+QUEUED$/m);
    expect(output.text()).toContain('agent-ledger events follow r1');
  });

  it('runs start -q prints the run id only, and sends no Authorization without a key', async () => {
    const { fetch, calls } = fakeFetch(json(202, { runId: 'r2', mode: 'queued', status: 'QUEUED', replayed: true }));
    const output = capture();
    expect(await runCli(['runs', 'start', '--agent', 'a', '--input', 'plain text', '-q'], output, ENV, { fetch })).toBe(0);
    expect(output.lines).toEqual(['r2']);
    expect(calls[0]?.headers.authorization).toBeUndefined();
    expect(calls[0]?.body).toEqual({ agent: 'a', input: 'plain text', mode: 'queued' });
  });

  it('runs start --mode interactive prints the settled run and its steps; exit 1 when it failed', async () => {
    const run = (status: string, reason: string) => ({
      runId: 'r3', mode: 'interactive', replayed: false, segment: 'settled',
      run: {
        runId: 'r3', agent: 'clock', mode: 'interactive', status, reason, deadLettered: false, attempts: 1, requeues: 0, cancelRequested: false, answer: status === 'COMPLETED' ? 'tick' : null,
        steps: [{ stepId: 'r3/r0/t0', kind: 'tool', toolName: 'clock.now', effect: 'READ_ONLY', status: 'completed', starts: 1, outcome: 'succeeded' }],
      },
    });
    const { fetch } = fakeFetch(json(200, run('COMPLETED', 'COMPLETED')), json(200, run('FAILED', 'PROVIDER_FAILED')));
    const done = capture();
    expect(await runCli(['runs', 'start', '--agent', 'clock', '--input', 'now?', '--mode', 'interactive'], done, ENV, { fetch })).toBe(0);
    expect(done.text()).toMatch(/^answer\s+tick$/m);
    expect(done.text()).toMatch(/r3\/r0\/t0\s+tool\s+clock\.now\s+READ_ONLY\s+completed\s+succeeded/);
    const failed = capture();
    expect(await runCli(['runs', 'start', '--agent', 'clock', '--input', 'now?', '--mode', 'interactive', '--json'], failed, ENV, { fetch })).toBe(1);
    expect(JSON.parse(failed.text())).toMatchObject({ run: { status: 'FAILED', reason: 'PROVIDER_FAILED' } });
  });

  it('a refused request (4xx) is exit 4 with the code, field and message of the service', async () => {
    const { fetch } = fakeFetch(
      json(400, { statusCode: 400, error: 'Bad Request', code: 'INVALID_FIELD', field: 'agent', rule: 'invalid', message: 'agent must name a configured agent' }),
      json(401, { statusCode: 401, code: 'UNAUTHORIZED', message: 'a valid API key is required' }),
    );
    const output = capture();
    expect(await runCli(['runs', 'start', '--agent', 'nobody', '--input', 'x'], output, ENV, { fetch })).toBe(4);
    expect(output.errText()).toBe('agent-ledger runs start: refused: 400 INVALID_FIELD: agent must name a configured agent (field: agent, rule: invalid)');
    const unauthorised = capture();
    expect(await runCli(['runs', 'list'], unauthorised, ENV, { fetch })).toBe(4);
    expect(unauthorised.errText()).toBe(
      'agent-ledger runs list: refused: 401 UNAUTHORIZED: a valid API key is required. ' +
        'The CLI sends the API key of AGENT_LEDGER_API_KEY (as "Authorization: Bearer <key>"): set AGENT_LEDGER_API_KEY to a key the service knows',
    );
  });

  it('an unreachable service, a server error or an answer that is not JSON is exit 3', async () => {
    const { fetch } = fakeFetch(refused(), json(503, { statusCode: 503, code: 'STORE_UNAVAILABLE', message: 'the store is unavailable' }), new Response('<html>proxy</html>', { status: 502 }));
    const unreachable = capture();
    expect(await runCli(['runs', 'get', 'r1'], unreachable, ENV, { fetch })).toBe(3);
    expect(unreachable.errText()).toBe('agent-ledger runs get failed: cannot reach the service at http://svc.test:8080: connect ECONNREFUSED 127.0.0.1:3000');
    const unavailable = capture();
    expect(await runCli(['runs', 'get', 'r1'], unavailable, ENV, { fetch })).toBe(3);
    expect(unavailable.errText()).toContain('503 STORE_UNAVAILABLE');
    const proxy = capture();
    expect(await runCli(['runs', 'get', 'r1'], proxy, ENV, { fetch })).toBe(3);
    expect(proxy.errText()).toContain('not JSON');
  });

  it('no answer within --timeout is exit 3 naming the request and the option; the request is aborted', async () => {
    let signal: AbortSignal | undefined;
    const fetch = ((_input: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        signal = init.signal ?? undefined;
        signal?.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')));
      })) as unknown as typeof globalThis.fetch;
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1', '--timeout', '0.05'], output, ENV, { fetch })).toBe(3);
    expect(output.errText()).toBe('agent-ledger runs get failed: GET http://svc.test:8080/runs/r1: no answer in time (--timeout)');
    expect(signal?.aborted).toBe(true);
  });

  it('a verb that does not talk to the service is not read as one when it fails, whatever AGENT_LEDGER_URL holds', async () => {
    const output = capture();
    expect(await runCli(['audit', 'verify'], output, { AGENT_LEDGER_URL: 'not a url', PORT: 'eighty' })).toBe(3);
    expect(output.errText()).toContain('PORT must be an integer');
  });

  it('runs get prints the read-model row as fields', async () => {
    const row = {
      runId: 'r1', agent: 'writer', mode: 'queued', status: 'FAILED', reason: 'WRITE_INTERRUPTED', failureClass: 'connection', failureCode: 'LEASE_EXPIRED', failureMessage: 'lease expired',
      deadLettered: true, attempts: 2, requeues: 1, leaseOwner: null, currentStepId: null, inFlightStepId: 'r1/r0/t0', cancelRequested: false, cancelRequestedBy: null,
      requestedAt: Date.UTC(2026, 10, 30), settledAt: Date.UTC(2026, 10, 30, 0, 1), stepsTotal: 2, auditGaps: 0,
    };
    const { fetch, calls } = fakeFetch(json(200, row), byPath({ steps: [stepRow('r1/r0', null, 'responded')] }));
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1'], output, ENV, { fetch })).toBe(0);
    expect(calls.map((c) => c.url)).toEqual(['http://svc.test:8080/runs/r1', 'http://svc.test:8080/runs/r1/steps']);
    // No tool call completed: no results section, and no event stream read for it.
    expect(output.text()).not.toContain('Tool results');
    expect(output.text()).toMatch(/^status\s+FAILED$/m);
    expect(output.text()).toMatch(/^failure\s+connection\/LEASE_EXPIRED: lease expired$/m);
    expect(output.text()).toMatch(/^dead-lettered\s+yes$/m);
    expect(output.text()).toMatch(/^write in flight\s+r1\/r0\/t0$/m);
    expect(output.text()).toMatch(/^settled\s+2026-11-30T00:01:00.000Z$/m);
  });

  it("runs get prints a completed run's final answer, cut at 200 characters unless --full", async () => {
    const answer = `It is noon. ${'x'.repeat(300)}`;
    const row = {
      runId: 'r1', agent: 'teller', mode: 'interactive', status: 'COMPLETED', reason: 'COMPLETED', failureClass: null, failureCode: null, failureMessage: null,
      deadLettered: false, attempts: 1, requeues: 0, leaseOwner: null, currentStepId: null, inFlightStepId: null, cancelRequested: false, cancelRequestedBy: null,
      requestedAt: Date.UTC(2026, 10, 30), settledAt: Date.UTC(2026, 10, 30, 0, 1), stepsTotal: 0, auditGaps: 0, finalAnswer: answer,
    };
    const cut = capture();
    expect(await runCli(['runs', 'get', 'r1'], cut, ENV, { fetch: fakeFetch(json(200, row)).fetch })).toBe(0);
    expect(cut.text()).toMatch(new RegExp(`^answer\\s+${answer.slice(0, 200)}… \\(${answer.length} chars; --full for all\\)$`, 'm'));
    const whole = capture();
    expect(await runCli(['runs', 'get', 'r1', '--full'], whole, ENV, { fetch: fakeFetch(json(200, row)).fetch })).toBe(0);
    expect(whole.text()).toMatch(new RegExp(`^answer\\s+${answer}$`, 'm'));
    // A run without an answer (failed, or an older service's row) has no answer line.
    const none = capture();
    expect(await runCli(['runs', 'get', 'r1'], none, ENV, { fetch: fakeFetch(json(200, { ...row, status: 'FAILED', finalAnswer: null })).fetch })).toBe(0);
    expect(none.text()).not.toMatch(/^answer/m);
  });

  it('runs list passes the filters and prints a table and the next cursor', async () => {
    const row = { runId: 'r1', agent: 'writer', mode: 'queued', status: 'COMPLETED', reason: 'COMPLETED', attempts: 1, stepsTotal: 5, requestedAt: Date.UTC(2026, 10, 30) };
    const { fetch, calls } = fakeFetch(json(200, { runs: [row], nextCursor: 'c2' }), json(200, { runs: [], nextCursor: null }));
    const output = capture();
    expect(await runCli(['runs', 'list', '--status', 'completed', '--agent', 'writer', '--limit', '1'], output, ENV, { fetch })).toBe(0);
    expect(calls[0]?.url).toBe('http://svc.test:8080/runs?status=COMPLETED&agent=writer&limit=1');
    expect(output.lines[0]).toMatch(/^run\s+agent\s+mode\s+status\s+reason\s+attempts\s+steps\s+requested$/);
    expect(output.lines[2]).toMatch(/^r1\s+writer\s+queued\s+COMPLETED\s+COMPLETED\s+1\s+5\s+2026-11-30T00:00:00.000Z$/);
    expect(output.lines.at(-1)).toBe('More: --cursor c2');
    const empty = capture();
    expect(await runCli(['runs', 'list', '--cursor', 'c2'], empty, ENV, { fetch })).toBe(0);
    expect(calls[1]?.url).toBe('http://svc.test:8080/runs?cursor=c2');
    expect(empty.lines).toEqual(['No runs.']);
  });

  it('runs cancel: cancelled at once (200), requested (202), refused when settled (409, exit 4)', async () => {
    const view = (status: string) => ({ runId: 'r1', cancelRequested: true, run: { runId: 'r1', status } });
    const { fetch, calls } = fakeFetch(json(200, view('CANCELLED')), json(202, view('RUNNING')), json(409, { statusCode: 409, code: 'RUN_ALREADY_SETTLED', message: 'Run r1 is already settled (COMPLETED)', status: 'COMPLETED' }));
    const queued = capture();
    expect(await runCli(['runs', 'cancel', 'r1', '--reason', 'not needed'], queued, ENV, { fetch })).toBe(0);
    expect(calls[0]).toMatchObject({ url: 'http://svc.test:8080/runs/r1/cancel', method: 'POST', body: { reason: 'not needed' } });
    // Who asks is the CLI's key, as the service authenticates it: never a name in the body.
    expect(calls[0]?.body).toEqual({ reason: 'not needed' });
    expect(queued.text()).toBe('Run r1 cancelled (status CANCELLED).');
    const running = capture();
    expect(await runCli(['runs', 'cancel', 'r1'], running, ENV, { fetch })).toBe(0);
    expect(running.text()).toContain('cancel requested');
    const settled = capture();
    expect(await runCli(['runs', 'cancel', 'r1'], settled, ENV, { fetch })).toBe(4);
    expect(settled.errText()).toContain('409 RUN_ALREADY_SETTLED: Run r1 is already settled (COMPLETED)');
  });

  it('runs requeue: sends the stated resolution, prints the continuation; refusals are exit 4; both statements at once is a usage error', async () => {
    const { fetch, calls } = fakeFetch(
      json(202, { runId: 'r1', continuationRunId: 'c1' }),
      json(409, { statusCode: 409, code: 'IN_FLIGHT_WRITE_UNRESOLVED', message: 'a requeue must state in "resolution" whether it was executed' }),
    );
    const done = capture();
    expect(await runCli(['runs', 'requeue', 'r1', '--write-not-executed', 'no line in the log', '--reason', 'key rotated'], done, ENV, { fetch })).toBe(0);
    expect(calls[0]).toMatchObject({
      url: 'http://svc.test:8080/runs/r1/requeue',
      method: 'POST',
      body: { reason: 'key rotated', resolution: { outcome: 'notExecuted', note: 'no line in the log' } },
    });
    expect(done.text()).toContain('run c1 continues it');
    const refused = capture();
    expect(await runCli(['runs', 'requeue', 'r1'], refused, ENV, { fetch })).toBe(4);
    expect(refused.errText()).toContain('409 IN_FLIGHT_WRITE_UNRESOLVED');
    expect(await runCli(['runs', 'requeue', 'r1', '--write-executed', 'a', '--write-not-executed', 'b'], capture(), ENV, { fetch })).toBe(2);
  });

  it('runs requeue -q prints the continuation run id only (for CONT=$(...))', async () => {
    const { fetch } = fakeFetch(json(202, { runId: 'r1', continuationRunId: 'c1' }));
    const quiet = capture();
    expect(await runCli(['runs', 'requeue', 'r1', '--write-executed', 'the line is there', '-q'], quiet, ENV, { fetch })).toBe(0);
    expect(quiet.lines).toEqual(['c1']);
  });
});

describe('agent-ledger CLI: approvals and input', () => {
  const KEY = { ...ENV, AGENT_LEDGER_API_KEY: 'key-123' };
  const HEADERS = { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer key-123' };
  const call = { stepId: 'r1/r2/t0', callIndex: 0, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { path: 'clerk.log', content: 'report.txt written\n' }, requirement: 'write' };
  const pendingApproval = { round: 2, calls: [call], onDenial: 'tellModel', requestedAt: Date.UTC(2026, 10, 30, 0, 0, 5) };
  const answer = (status: string, reason: string | null = null) => ({ runId: 'r1', status, run: { runId: 'r1', agent: 'file-clerk', status, reason, pendingApproval: null, pendingInput: null, steps: [] } });
  const notWaiting = () => json(409, { statusCode: 409, code: 'RUN_NOT_WAITING_FOR_APPROVAL', message: 'Run r1 is not waiting for approval (COMPLETED)' });
  const notFound = () => json(404, { statusCode: 404, code: 'RUN_NOT_FOUND', message: 'Run nope was not found' });
  const waitingRow = (status: string, extra: Record<string, unknown>) => ({
    runId: 'r1', agent: 'file-clerk', mode: 'queued', status, reason: null, failureClass: null, failureCode: null, failureMessage: null, deadLettered: null, attempts: 1, requeues: 0,
    leaseOwner: null, currentStepId: null, inFlightStepId: null, cancelRequested: false, cancelRequestedBy: null, requestedAt: Date.UTC(2026, 10, 30), settledAt: null, stepsTotal: 5, auditGaps: 0,
    waitingSince: Date.UTC(2026, 10, 30, 0, 0, 5), approvalRound: null, inputStepId: null, ...extra,
  });

  it('runs approve: POST /runs/{runId}/approval with the decision, reason and round; prints the new status', async () => {
    const { fetch, calls } = fakeFetch(json(200, answer('QUEUED')), json(200, answer('QUEUED')));
    const output = capture();
    expect(await runCli(['runs', 'approve', 'r1', '--reason', 'looks right', '--round', '2'], output, KEY, { fetch })).toBe(0);
    expect(calls[0]).toEqual({ url: 'http://svc.test:8080/runs/r1/approval', method: 'POST', headers: HEADERS, body: { decision: 'approve', reason: 'looks right', round: 2 } });
    expect(output.lines).toEqual(['Run r1 approved: status QUEUED.', 'Watch it: agent-ledger events follow r1']);
    const asJson = capture();
    expect(await runCli(['runs', 'approve', 'r1', '--json'], asJson, KEY, { fetch })).toBe(0);
    expect(calls[1]?.body).toEqual({ decision: 'approve' });
    expect(JSON.parse(asJson.text())).toEqual(answer('QUEUED'));
  });

  it('runs deny: the decision "deny"; a run that ends (endRun) prints its status and reason', async () => {
    const { fetch, calls } = fakeFetch(json(200, answer('FAILED', 'APPROVAL_DENIED')), json(200, answer('QUEUED')));
    const ended = capture();
    expect(await runCli(['runs', 'deny', 'r1', '--reason', 'not this file'], ended, ENV, { fetch })).toBe(0);
    expect(calls[0]).toEqual({
      url: 'http://svc.test:8080/runs/r1/approval',
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: { decision: 'deny', reason: 'not this file' },
    });
    expect(ended.lines).toEqual(['Run r1 denied: status FAILED, reason APPROVAL_DENIED.']);
    const told = capture();
    expect(await runCli(['runs', 'deny', 'r1'], told, ENV, { fetch })).toBe(0);
    expect(told.lines).toEqual(['Run r1 denied: status QUEUED.', 'Watch it: agent-ledger events follow r1']);
  });

  it('runs approve|deny: refusals (409, 404, 400) are exit 4 with the code; a decision whose statement is pending took effect: exit 0 and a warning', async () => {
    const { fetch } = fakeFetch(
      notWaiting(),
      json(409, { statusCode: 409, code: 'APPROVAL_ROUND_MISMATCH', message: 'Run r1 waits for the approval of round 2, not 1' }),
      notFound(),
      json(400, { statusCode: 400, code: 'INVALID_FIELD', field: 'reason', rule: 'length', message: 'reason must be 1 to 500 characters' }),
      json(200, { runId: 'r1', status: 'QUEUED', run: { runId: 'r1', status: 'QUEUED', reason: null }, auditStatement: 'pending' }),
    );
    const again = capture();
    expect(await runCli(['runs', 'approve', 'r1'], again, ENV, { fetch })).toBe(4);
    expect(again.errText()).toBe('agent-ledger runs approve: refused: 409 RUN_NOT_WAITING_FOR_APPROVAL: Run r1 is not waiting for approval (COMPLETED)');
    const round = capture();
    expect(await runCli(['runs', 'deny', 'r1', '--round', '1'], round, ENV, { fetch })).toBe(4);
    expect(round.errText()).toContain('409 APPROVAL_ROUND_MISMATCH');
    const unknown = capture();
    expect(await runCli(['runs', 'approve', 'nope'], unknown, ENV, { fetch })).toBe(4);
    expect(unknown.errText()).toContain('404 RUN_NOT_FOUND');
    const bad = capture();
    expect(await runCli(['runs', 'deny', 'r1', '--reason', 'x'.repeat(501)], bad, ENV, { fetch })).toBe(4);
    expect(bad.errText()).toContain('400 INVALID_FIELD: reason must be 1 to 500 characters (field: reason, rule: length)');
    const pending = capture();
    expect(await runCli(['runs', 'approve', 'r1'], pending, ENV, { fetch })).toBe(0);
    expect(pending.lines[0]).toBe('Run r1 approved: status QUEUED.');
    expect(pending.errText()).toContain('its statement could not be stored in the audit trail yet');
    expect(again.lines).toEqual([]);
  });

  it('runs approve --round must be a whole number (exit 2, nothing sent)', async () => {
    const { fetch, calls } = fakeFetch();
    const output = capture();
    expect(await runCli(['runs', 'approve', 'r1', '--round', '1.5'], output, ENV, { fetch })).toBe(2);
    expect(output.errText()).toContain('--round must be a whole number (got "1.5")');
    expect(calls).toHaveLength(0);
  });

  it('runs input: POST /runs/{runId}/input with the parsed JSON; prints the new status', async () => {
    const { fetch, calls } = fakeFetch(json(200, answer('QUEUED')), json(200, answer('QUEUED')));
    const output = capture();
    expect(await runCli(['runs', 'input', 'r1', '--input', '"notes.txt"'], output, KEY, { fetch })).toBe(0);
    expect(calls[0]).toEqual({ url: 'http://svc.test:8080/runs/r1/input', method: 'POST', headers: HEADERS, body: { input: 'notes.txt' } });
    expect(output.lines).toEqual(['Run r1: input submitted; status QUEUED.', 'Watch it: agent-ledger events follow r1']);
    const asJson = capture();
    expect(await runCli(['runs', 'input', 'r1', '--input', '{"file":"notes.txt","lines":[1,2]}', '--json'], asJson, KEY, { fetch })).toBe(0);
    expect(calls[1]?.body).toEqual({ input: { file: 'notes.txt', lines: [1, 2] } });
    expect(JSON.parse(asJson.text())).toMatchObject({ runId: 'r1', status: 'QUEUED' });
  });

  it('runs input: --input that is not JSON is a usage error naming --input; refusals (409, 404, 400) are exit 4', async () => {
    const { fetch, calls } = fakeFetch(
      json(409, { statusCode: 409, code: 'RUN_NOT_WAITING_FOR_INPUT', message: 'Run r1 is not waiting for input (RUNNING)' }),
      notFound(),
      json(400, { statusCode: 400, code: 'INVALID_FIELD', field: 'input', rule: 'required', message: 'input is required' }),
    );
    const notJson = capture();
    expect(await runCli(['runs', 'input', 'r1', '--input', 'notes.txt'], notJson, ENV, { fetch })).toBe(2);
    expect(notJson.errText()).toMatch(/^agent-ledger runs input: --input must be JSON/);
    expect(notJson.errText()).toContain('Usage: agent-ledger runs input <runId> --input <json>');
    expect(calls).toHaveLength(0);
    const notWaitingForInput = capture();
    expect(await runCli(['runs', 'input', 'r1', '--input', '"x"'], notWaitingForInput, ENV, { fetch })).toBe(4);
    expect(notWaitingForInput.errText()).toBe('agent-ledger runs input: refused: 409 RUN_NOT_WAITING_FOR_INPUT: Run r1 is not waiting for input (RUNNING)');
    const unknown = capture();
    expect(await runCli(['runs', 'input', 'nope', '--input', 'null'], unknown, ENV, { fetch })).toBe(4);
    expect(unknown.errText()).toContain('404 RUN_NOT_FOUND');
    expect(calls[1]?.body).toEqual({ input: null });
    const bad = capture();
    expect(await runCli(['runs', 'input', 'r1', '--input', '1'], bad, ENV, { fetch })).toBe(4);
    expect(bad.errText()).toContain('400 INVALID_FIELD: input is required (field: input, rule: required)');
  });

  it('approvals list: GET /approvals with every filter; each request with when (ISO and age) and why, its calls and arguments, and the next cursor', async () => {
    const requestedAt = Date.UTC(2026, 10, 30, 0, 0, 5);
    const now = () => requestedAt + 3 * 60_000 + 20_000;
    const row = (state: string, decided: { by: string | null; at: number | null; reason: string | null } = { by: null, at: null, reason: null }) => ({
      approvalId: 'r1/r2', runId: 'r1', agent: 'file-clerk', round: 2, calls: [call], onDenial: 'tellModel', requestedAt, state, decidedBy: decided.by, reason: decided.reason, decidedAt: decided.at,
    });
    const { fetch, calls } = fakeFetch(json(200, { approvals: [row('pending')], nextCursor: 'c2' }), json(200, { approvals: [row('approved', { by: 'key:ops', at: requestedAt + 60_000, reason: 'one line is fine' })], nextCursor: null }), json(200, { approvals: [], nextCursor: null }));
    const output = capture();
    const argv = ['approvals', 'list', '--state', 'PENDING', '--agent', 'file-clerk', '--run-id', 'r1', '--since', '2026-11-30T00:00:00Z', '--until', '1796000000000', '--limit', '1', '--cursor', 'c1'];
    expect(await runCli(argv, output, KEY, { fetch, now })).toBe(0);
    expect(calls[0]).toEqual({
      url: 'http://svc.test:8080/approvals?state=pending&agent=file-clerk&runId=r1&since=2026-11-30T00%3A00%3A00Z&until=1796000000000&limit=1&cursor=c1',
      method: 'GET',
      headers: { accept: 'application/json', authorization: 'Bearer key-123' },
      body: undefined,
    });
    expect(output.lines).toEqual([
      'r1/r2: pending, run r1, agent file-clerk, model round 2',
      '  requested  2026-11-30T00:00:05.000Z (3 min ago)',
      '  call 0     files.append (NON_IDEMPOTENT_WRITE) {"path":"clerk.log","content":"report.txt written\\n"}',
      '    why      a NON_IDEMPOTENT_WRITE that file-clerk does not pre-approve (approvals.preApproved in its agents file)',
      '  on denial  tellModel (the model is told; the run goes on)',
      '',
      'Decide: agent-ledger runs approve|deny <run> [--reason R] (one decision covers every call of the round)',
      '',
      'More: --cursor c2',
    ]);
    const decided = capture();
    expect(await runCli(['approvals', 'list', '--state', 'approved'], decided, ENV, { fetch, now })).toBe(0);
    expect(calls[1]?.url).toBe('http://svc.test:8080/approvals?state=approved');
    expect(decided.lines.at(-1)).toBe('  decided    approved by key:ops 2026-11-30T00:01:05.000Z (2 min ago): "one line is fine"');
    expect(decided.text()).not.toContain('Decide:');
    const empty = capture();
    expect(await runCli(['approvals', 'list'], empty, ENV, { fetch })).toBe(0);
    expect(calls[2]?.url).toBe('http://svc.test:8080/approvals');
    expect(empty.lines).toEqual(['No approvals.']);
  });

  it('approvals list: a tool that always asks, long arguments clipped (whole with --json), a denial that ends the run, a cancelled request; --json is the answer as is', async () => {
    const requestedAt = Date.UTC(2026, 10, 30);
    const now = () => requestedAt + 26 * 3_600_000;
    const long = { stepId: 'r9/r0/t1', callIndex: 1, toolName: 'crm.lookup', effect: 'READ_ONLY', arguments: { query: 'x'.repeat(300) }, requirement: 'tool' };
    const answer = {
      approvals: [
        { approvalId: 'r9/r0', runId: 'r9', agent: 'crm', round: 0, calls: [long], onDenial: 'endRun', requestedAt, state: 'denied', decidedBy: 'key:ops', reason: null, decidedAt: requestedAt + 25 * 3_600_000 },
        { approvalId: 'r8/r1', runId: 'r8', agent: 'crm', round: 1, calls: [long], onDenial: 'endRun', requestedAt, state: 'cancelled', decidedBy: null, reason: 'CANCELLED', decidedAt: requestedAt + 3_600_000 },
      ],
      nextCursor: null,
    };
    const { fetch } = fakeFetch(json(200, answer), json(200, answer));
    const output = capture();
    expect(await runCli(['approvals', 'list'], output, ENV, { fetch, now })).toBe(0);
    const argumentsText = JSON.stringify(long.arguments);
    expect(output.lines.slice(0, 6)).toEqual([
      'r9/r0: denied, run r9, agent crm, model round 0',
      '  requested  2026-11-30T00:00:00.000Z (1 d 2 h ago)',
      `  call 1     crm.lookup (READ_ONLY) ${argumentsText.slice(0, 199)}… (${argumentsText.length} characters; --json for all)`,
      '    why      the tool asks for approval whatever its effect (requiresApproval in its code)',
      '  on denial  endRun (the run ends FAILED, APPROVAL_DENIED)',
      '  decided    denied by key:ops 2026-12-01T01:00:00.000Z (1 h ago), no reason given',
    ]);
    expect(output.lines.at(-1)).toBe('  decided    cancelled 2026-11-30T01:00:00.000Z (1 d 1 h ago): the run was settled while it waited (CANCELLED)');
    const asJson = capture();
    expect(await runCli(['approvals', 'list', '--json'], asJson, ENV, { fetch, now })).toBe(0);
    expect(JSON.parse(asJson.text())).toEqual(answer);
  });

  it('approvals list: a refused query (400) is exit 4 naming the field; a bad --state is exit 2 before any request', async () => {
    const { fetch, calls } = fakeFetch(json(400, { statusCode: 400, code: 'INVALID_FIELD', field: 'since', rule: 'isInt', message: 'since must be ms since the epoch or an ISO 8601 date-time' }));
    const bad = capture();
    expect(await runCli(['approvals', 'list', '--since', 'yesterday'], bad, ENV, { fetch })).toBe(4);
    expect(bad.errText()).toBe('agent-ledger approvals list: refused: 400 INVALID_FIELD: since must be ms since the epoch or an ISO 8601 date-time (field: since, rule: isInt)');
    const state = capture();
    expect(await runCli(['approvals', 'list', '--state', 'open'], state, ENV, { fetch })).toBe(2);
    expect(state.errText()).toContain('--state must be one of pending, approved, denied, cancelled (got "open")');
    expect(calls).toHaveLength(1);
  });

  const approvalRow = { approvalId: 'r1/r2', runId: 'r1', agent: 'file-clerk', ...pendingApproval, state: 'pending', decidedBy: null, reason: null, decidedAt: null };
  const inputRequested = (runId: string, requestedAt: number) =>
    `id: 7:7\nevent: InputRequested\ndata: ${JSON.stringify({ type: 'InputRequested', position: '7:7', data: { runId, stepId: `${runId}/r0/t0`, round: 0, callIndex: 0, toolName: 'user.ask', prompt: 'Which file should I read?', owner: 'w', attempt: 1, requestedAt } })}\n\n`;

  it('runs get of a run waiting for approval asks GET /approvals for its calls and prints each with its arguments, and how to decide', async () => {
    const { fetch, calls } = fakeFetch(json(200, waitingRow('WAITING_FOR_APPROVAL', { approvalRound: 2 })), byPath({}), json(200, { approvals: [approvalRow], nextCursor: null }));
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1'], output, KEY, { fetch })).toBe(0);
    expect(calls.map((c) => [c.url, c.headers.authorization])).toEqual([
      ['http://svc.test:8080/runs/r1', 'Bearer key-123'],
      ['http://svc.test:8080/runs/r1/steps', 'Bearer key-123'],
      ['http://svc.test:8080/approvals?state=pending&runId=r1', 'Bearer key-123'],
    ]);
    expect(output.text()).toMatch(/^status\s+WAITING_FOR_APPROVAL$/m);
    expect(output.text()).toMatch(/^waiting since\s+2026-11-30T00:00:05.000Z$/m);
    expect(output.text()).toContain('Waiting for approval of round 2 (requested 2026-11-30T00:00:05.000Z; a denial: tellModel):');
    expect(output.text()).toMatch(/^step\s+tool\s+effect\s+needs\s+arguments$/m);
    expect(output.text()).toMatch(/^r2\/t0\s+files\.append\s+NON_IDEMPOTENT_WRITE\s+write\s+\{"path":"clerk\.log","content":"report\.txt written\\n"\}$/m);
    expect(output.lines.at(-1)).toBe("Decide: agent-ledger runs approve r1   or   agent-ledger runs deny r1 --reason '...'");
  });

  it('runs get of a run waiting for approval still prints the run when GET /approvals is refused', async () => {
    const { fetch } = fakeFetch(json(200, waitingRow('WAITING_FOR_APPROVAL', { approvalRound: 2 })), byPath({}), json(403, { statusCode: 403, code: 'SCOPE_MISSING', message: 'no' }));
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1'], output, ENV, { fetch })).toBe(0);
    expect(output.text()).toContain('Waiting for approval of round 2 (its calls: agent-ledger approvals list --run-id r1 --json).');
  });

  it("runs get of a run waiting for input reads the prompt from the run's events and prints how to answer", async () => {
    const waitingSince = Date.UTC(2026, 10, 30, 0, 0, 5);
    const older = inputRequested('r1', waitingSince - 1000).replace('Which file should I read?', 'an older question');
    const { fetch, calls } = fakeFetch(json(200, waitingRow('WAITING_FOR_INPUT', { inputStepId: 'r1/r0/t0' })), byPath({}), sse([': events of run r1\n\n', older, inputRequested('r1', waitingSince)], { open: true }));
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1'], output, ENV, { fetch })).toBe(0);
    expect(calls[2]).toMatchObject({ url: 'http://svc.test:8080/runs/r1/events', headers: { accept: 'text/event-stream' } });
    expect(output.lines.slice(-5)).toEqual([
      '',
      'Waiting for input: user.ask (step r0/t0, asked 2026-11-30T00:00:05.000Z) asks:',
      '  Which file should I read?',
      '',
      "Answer: agent-ledger runs input r1 --input '<JSON>'",
    ]);
  });

  it('runs get of a run waiting for input shows the step when the events cannot be read', async () => {
    const { fetch } = fakeFetch(json(200, waitingRow('WAITING_FOR_INPUT', { inputStepId: 'r1/r0/t0' })), byPath({}), refused());
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1'], output, ENV, { fetch })).toBe(0);
    expect(output.text()).toContain('Waiting for input at step r0/t0 (its prompt: agent-ledger events follow r1).');
  });

  const executed = (position: string, stepId: string, toolName: string, outcome: string, extra: Record<string, unknown>) =>
    frame(position, 'ToolExecuted', { stepId, round: 0, callIndex: 0, toolName, effect: 'READ_ONLY', outcome, durationMs: 1, ...extra });

  it('runs get prints each completed tool call with its result cut at 200 characters, a failure, a denial (who, why); --full prints the whole result', async () => {
    const content = 'x'.repeat(300);
    const read = { path: 'notes.txt', content, bytes: 300 };
    const events = [
      executed('3:3', 'r1/r0/t0', 'files.read', 'succeeded', { result: read, error: null }),
      executed('5:5', 'r1/r1/t0', 'files.write', 'failed', { result: null, error: { failureClass: 'clientError', code: 'WORKSPACE_PATH', message: 'outside the workspace' } }),
      frame('7:7', 'ApprovalDenied', { round: 2, stepIds: ['r1/r2/t0'], decidedBy: { kind: 'apiKey', id: 'alice' }, reason: 'not today', onDenial: 'tellModel', decidedAt: 1 }),
      frame('8:8', 'ToolExecuted', { stepId: 'r1/r9/t0', toolName: 'never.asked', outcome: 'succeeded', result: 'not a completed step of the read model' }),
    ];
    const steps = [stepRow('r1/r0', null, 'responded'), stepRow('r1/r0/t0', 'files.read', 'succeeded'), stepRow('r1/r1/t0', 'files.write', 'failed'), stepRow('r1/r2/t0', 'files.append', 'denied')];
    const row = waitingRow('COMPLETED', { reason: 'COMPLETED', settledAt: Date.UTC(2026, 10, 30, 0, 1), waitingSince: null });
    const { fetch, calls } = fakeFetch(json(200, row), byPath({ steps, events }), byPath({ steps, events }), json(200, row), byPath({ steps, events }), byPath({ steps, events }));
    const output = capture();
    expect(await runCli(['runs', 'get', 'r1'], output, ENV, { fetch })).toBe(0);
    expect(calls.map((c) => c.url)).toEqual(['http://svc.test:8080/runs/r1', 'http://svc.test:8080/runs/r1/steps', 'http://svc.test:8080/runs/r1/events']);
    const whole = JSON.stringify(read);
    expect(output.lines.slice(-4)).toEqual([
      'Tool results:',
      `  r0/t0 files.read succeeded: ${whole.slice(0, 200)}… (${whole.length} chars; --full for all)`,
      '  r1/t0 files.write failed: clientError/WORKSPACE_PATH: outside the workspace',
      '  r2/t0 files.append denied: denied by key:alice: not today; not executed',
    ]);
    const full = capture();
    expect(await runCli(['runs', 'get', 'r1', '--full'], full, ENV, { fetch })).toBe(0);
    expect(full.lines).toContain(`  r0/t0 files.read succeeded: ${whole}`);
  });

  it('runs get says which results the events did not show (a stream that ended first), and that the steps could not be read', async () => {
    const steps = [stepRow('r1/r0/t0', 'clock.now', 'succeeded')];
    const row = waitingRow('RUNNING', { waitingSince: null });
    const { fetch } = fakeFetch(json(200, row), byPath({ steps }), byPath({ steps, events: [': no events yet\n\n'], eventsEnd: true }), json(200, row), json(403, { statusCode: 403, code: 'SCOPE_MISSING', message: 'no' }));
    const unread = capture();
    expect(await runCli(['runs', 'get', 'r1'], unread, ENV, { fetch })).toBe(0);
    expect(unread.lines.at(-1)).toBe("  r0/t0 clock.now succeeded: (not read from the run's events; agent-ledger events follow r1)");
    const refusedSteps = capture();
    expect(await runCli(['runs', 'get', 'r1'], refusedSteps, ENV, { fetch })).toBe(0);
    expect(refusedSteps.lines.at(-1)).toBe('Tool results: not available (the steps could not be read; agent-ledger events follow r1)');
  });

  it('runs list shows what a waiting run waits for: the tools (GET /approvals) or the prompt (its events)', async () => {
    const asking = { ...waitingRow('WAITING_FOR_INPUT', { inputStepId: 'r3/r0/t0' }), runId: 'r3', agent: 'ticket-asker' };
    const byUrl = (call: Call) =>
      call.url.includes('/approvals') ? json(200, { approvals: [approvalRow], nextCursor: null }) : sse([inputRequested('r3', Date.UTC(2026, 10, 30, 0, 0, 5))], { open: true });
    const { fetch, calls } = fakeFetch(json(200, { runs: [waitingRow('WAITING_FOR_APPROVAL', { approvalRound: 2 }), asking], nextCursor: null }), byUrl, byUrl);
    const output = capture();
    expect(await runCli(['runs', 'list', '--status', 'waiting_for_approval'], output, ENV, { fetch })).toBe(0);
    expect(calls.map((c) => c.url).sort()).toEqual(['http://svc.test:8080/approvals?state=pending&runId=r1', 'http://svc.test:8080/runs/r3/events', 'http://svc.test:8080/runs?status=WAITING_FOR_APPROVAL']);
    expect(output.lines[0]).toMatch(/\s+requested\s+waiting for$/);
    expect(output.lines[2]).toMatch(/^r1\s+file-clerk\s+queued\s+WAITING_FOR_APPROVAL\s+-\s+1\s+5\s+\S+\s+approval: files\.append \(NON_IDEMPOTENT_WRITE\)$/);
    expect(output.lines[3]).toMatch(/^r3\s+ticket-asker\s.*\s+input: user\.ask asks "Which file should I read\?"$/);
  });
});

describe('agent-ledger CLI: agents', () => {
  /** An MCP server `fs`'s tool, as GET /agents shows it. */
  const mcp = (name: string, effect: string, source: { effectSource: string; declared: string | null; hinted: string | null; trusted?: boolean; conflict?: boolean }) => ({
    name,
    effect,
    source: { kind: 'mcp', server: 'fs', tool: name.slice('fs.'.length), trusted: false, conflict: false, ...source },
  });
  const agents = {
    agents: [
      {
        name: 'journal-keeper',
        description: 'Keeps the journal',
        tools: [
          { name: 'journal.read', effect: 'READ_ONLY', source: { kind: 'code' } },
          { name: 'journal.append', effect: 'NON_IDEMPOTENT_WRITE', source: { kind: 'code' } },
          { name: 'journal.index', effect: 'IDEMPOTENT_WRITE', source: { kind: 'code' } },
        ],
        approvals: { preApproved: ['journal.index'], onDenial: 'endRun' },
      },
      {
        name: 'fs-clerk',
        description: null,
        tools: [
          mcp('fs.write_file', 'IDEMPOTENT_WRITE', { effectSource: 'hint', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', conflict: true }),
          mcp('fs.read_text_file', 'READ_ONLY', { effectSource: 'declared', declared: 'READ_ONLY', hinted: 'READ_ONLY' }),
          mcp('fs.list_directory', 'NON_IDEMPOTENT_WRITE', { effectSource: 'default', declared: null, hinted: 'READ_ONLY' }),
          mcp('fs.search_files', 'READ_ONLY', { effectSource: 'hint', declared: null, hinted: 'READ_ONLY', trusted: true }),
          mcp('fs.move_file', 'NON_IDEMPOTENT_WRITE', { effectSource: 'declared', declared: 'NON_IDEMPOTENT_WRITE', hinted: 'READ_ONLY', conflict: true }),
          mcp('fs.edit_file', 'READ_ONLY', { effectSource: 'hint', declared: 'IDEMPOTENT_WRITE', hinted: 'READ_ONLY', trusted: true, conflict: true }),
          { name: 'gone.tool', effect: 'NON_IDEMPOTENT_WRITE', source: null },
        ],
        approvals: { preApproved: [], onDenial: 'endRun' },
      },
      { name: 'talker', description: null, tools: [], approvals: { preApproved: [], onDenial: 'tellModel' } },
    ],
  };

  it('agents list: GET /agents, one line per tool with its effect and whether a call waits for a person; --json the answer', async () => {
    const { fetch, calls } = fakeFetch(json(200, agents), json(200, agents));
    const output = capture();
    expect(await runCli(['agents', 'list'], output, { ...ENV, AGENT_LEDGER_API_KEY: 'k' }, { fetch })).toBe(0);
    expect(calls[0]).toMatchObject({ url: 'http://svc.test:8080/agents', method: 'GET', headers: { authorization: 'Bearer k' } });
    expect(output.lines[0]).toMatch(/^agent\s+tool\s+effect\s+source\s+approval\s+on denial$/);
    expect(output.lines.slice(2)).toEqual([
      expect.stringMatching(/^journal-keeper\s+journal\.read\s+READ_ONLY\s+code\s+-\s+endRun$/),
      expect.stringMatching(/^journal-keeper\s+journal\.append\s+NON_IDEMPOTENT_WRITE\s+code\s+asks a person\s+endRun$/),
      expect.stringMatching(/^journal-keeper\s+journal\.index\s+IDEMPOTENT_WRITE\s+code\s+pre-approved\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+fs\.write_file\s+IDEMPOTENT_WRITE\s+mcp fs; declared READ_ONLY, hints IDEMPOTENT_WRITE \(conflict: hints win\)\s+asks a person\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+fs\.read_text_file\s+READ_ONLY\s+mcp fs; declared\s+-\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+fs\.list_directory\s+NON_IDEMPOTENT_WRITE\s+mcp fs; default\s+asks a person\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+fs\.search_files\s+READ_ONLY\s+mcp fs; hints \(trusted\)\s+-\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+fs\.move_file\s+NON_IDEMPOTENT_WRITE\s+mcp fs; declared NON_IDEMPOTENT_WRITE, hints READ_ONLY \(conflict: declaration wins\)\s+asks a person\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+fs\.edit_file\s+READ_ONLY\s+mcp fs; declared IDEMPOTENT_WRITE, hints READ_ONLY \(conflict: trusted hints win\)\s+-\s+endRun$/),
      expect.stringMatching(/^fs-clerk\s+gone\.tool\s+NON_IDEMPOTENT_WRITE\s+-\s+asks a person\s+endRun$/),
      expect.stringMatching(/^talker\s+-\s+-\s+-\s+-\s+tellModel$/),
    ]);
    const asJson = capture();
    expect(await runCli(['agents', 'list', '--json'], asJson, ENV, { fetch })).toBe(0);
    expect(JSON.parse(asJson.text())).toEqual(agents);
  });
});

describe('agent-ledger CLI: events follow', () => {
  // As the service sends it: in the current version of its type (schema version 2: who started the run).
  const requested = frame('1:1', 'RunRequested', { agent: 'clock', mode: 'queued', input: 'now?', requestedBy: { kind: 'apiKey', id: 'ops' } }, { schemaVersion: 2 });
  const claimed = frame('2:2', 'RunClaimed', { owner: 'worker:host:42:a', attempt: 1 });
  const step = frame('3:3', 'StepStarted', { stepId: 'r1/r0/t0', kind: 'tool', toolName: 'clock.now', effect: 'READ_ONLY' });
  const completed = frame('5:5', 'RunCompleted', { reason: 'COMPLETED', finalAnswer: 'tick' });

  it('prints one line per event and ends with exit 0 when the run completes', async () => {
    const { fetch, calls } = fakeFetch(sse([': events of run r1\n\n', requested, claimed, step, completed, frame('6:6', 'AuditGapDetected', {})], { open: true }));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1'], output, { ...ENV, AGENT_LEDGER_API_KEY: 'k' }, { fetch, follow: PATIENT })).toBe(0);
    expect(calls[0]).toMatchObject({ url: 'http://svc.test:8080/runs/r1/events', headers: { accept: 'text/event-stream', authorization: 'Bearer k' } });
    expect(output.lines).toEqual([
      '1:1 RunRequested agent=clock mode=queued input="now?" requestedBy=key:ops',
      '2:2 RunClaimed owner=worker:host:42:a attempt=1',
      '3:3 StepStarted step=r0/t0 tool=clock.now effect=READ_ONLY',
      '5:5 RunCompleted answer="tick"',
    ]);
  });

  it("prints a tool's result cut at 200 characters with its length, a failure's class and message; --full prints the whole result", async () => {
    const result = { text: 'y'.repeat(250) };
    const executed = frame('4:4', 'ToolExecuted', { stepId: 'r1/r0/t0', round: 0, callIndex: 0, toolName: 'files.read', effect: 'READ_ONLY', outcome: 'succeeded', result, error: null, durationMs: 1 });
    const small = frame('4:5', 'ToolExecuted', { stepId: 'r1/r0/t1', toolName: 'clock.now', outcome: 'succeeded', result: { iso: '2026-11-30T00:00:00.000Z' }, error: null });
    const failed = frame('4:6', 'ToolExecuted', { stepId: 'r1/r0/t2', toolName: 'files.read', outcome: 'failed', result: null, error: { failureClass: 'clientError', code: 'NOT_FOUND', message: 'no such file' } });
    const { fetch } = fakeFetch(sse([executed, small, failed, completed]), sse([executed, completed]));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1'], output, ENV, { fetch, follow: PATIENT })).toBe(0);
    const whole = JSON.stringify(result);
    expect(output.lines.slice(0, 3)).toEqual([
      `4:4 ToolExecuted step=r0/t0 tool=files.read outcome=succeeded result=${whole.slice(0, 200)}… (${whole.length} chars; --full for all)`,
      '4:5 ToolExecuted step=r0/t1 tool=clock.now outcome=succeeded result={"iso":"2026-11-30T00:00:00.000Z"}',
      '4:6 ToolExecuted step=r0/t2 tool=files.read outcome=failed failure=clientError/NOT_FOUND: no such file',
    ]);
    const full = capture();
    expect(await runCli(['events', 'follow', 'r1', '--full'], full, ENV, { fetch, follow: PATIENT })).toBe(0);
    expect(full.lines[0]).toBe(`4:4 ToolExecuted step=r0/t0 tool=files.read outcome=succeeded result=${whole}`);
  });

  it('--json prints each event as one line of JSON; a failed run is exit 1', async () => {
    const failed = frame('4:4', 'RunFailed', { reason: 'NOT_RETRYABLE', deadLettered: true, failure: { failureClass: 'clientError', message: 'bad' } });
    const { fetch } = fakeFetch(sse([requested, failed]));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1', '--json'], output, ENV, { fetch, follow: PATIENT })).toBe(1);
    expect(output.lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['RunRequested', 'RunFailed']);
  });

  it('resumes after a dropped connection with Last-Event-ID, printing nothing twice', async () => {
    // The first stream ends after two events split across chunk boundaries; the second connection fails once; the third resumes.
    const split = requested + claimed;
    const { fetch, calls } = fakeFetch(sse([split.slice(0, 25), split.slice(25, 140), split.slice(140)]), refused(), sse([step, completed]));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1', '--after', '0:0'], output, ENV, { fetch, follow: PATIENT })).toBe(0);
    expect(calls.map((c) => c.headers['last-event-id'])).toEqual(['0:0', '2:2', '2:2']);
    expect(output.lines.map((l) => l.split(' ')[1])).toEqual(['RunRequested', 'RunClaimed', 'StepStarted', 'RunCompleted']);
    expect(output.errText()).toContain('resuming after 2:2');
    expect(output.errText()).toContain('ECONNREFUSED');
  });

  it('gives up with exit 3 when the service stays away after the connection was lost', async () => {
    const { fetch } = fakeFetch(sse([requested]), ...Array.from({ length: 200 }, () => refused()));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1'], output, ENV, { fetch, follow: FAST })).toBe(3);
    expect(output.errText()).toContain('gave up following run r1');
  });

  it('an unreachable service at the first connection is exit 3 at once; an unknown run is exit 4', async () => {
    const { fetch, calls } = fakeFetch(refused(), json(404, { statusCode: 404, code: 'RUN_NOT_FOUND', message: 'Run nope was not found' }));
    expect(await runCli(['events', 'follow', 'r1'], capture(), ENV, { fetch, follow: FAST })).toBe(3);
    expect(calls).toHaveLength(1);
    const output = capture();
    expect(await runCli(['events', 'follow', 'nope'], output, ENV, { fetch, follow: FAST })).toBe(4);
    expect(output.errText()).toContain('404 RUN_NOT_FOUND');
  });

  it('a frame whose data is not JSON ends the command: exit 3, naming the stream', async () => {
    const { fetch, calls } = fakeFetch(sse([requested, 'id: 2:2\ndata: {not json\n\n'], { open: true }));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1'], output, ENV, { fetch, follow: PATIENT })).toBe(3);
    expect(output.lines).toEqual(['1:1 RunRequested agent=clock mode=queued input="now?" requestedBy=key:ops']);
    expect(output.errText()).toContain('sent a frame whose data is not JSON: {not json');
    expect(calls).toHaveLength(1);
  });

  it('--until <EventType> ends with exit 0 once that event is printed (the stream still open); a run that settles first is exit 1; an unknown type is exit 2', async () => {
    const waits = frame('4:4', 'ApprovalRequested', { round: 0, calls: [{ toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' }], onDenial: 'endRun' });
    const { fetch, calls } = fakeFetch(sse([requested, claimed, waits], { open: true }), sse([requested, claimed, completed]));
    const output = capture();
    expect(await runCli(['events', 'follow', 'r1', '--until', 'ApprovalRequested'], output, ENV, { fetch, follow: PATIENT })).toBe(0);
    expect(output.lines.map((l) => l.split(' ')[1])).toEqual(['RunRequested', 'RunClaimed', 'ApprovalRequested']);
    const settled = capture();
    expect(await runCli(['events', 'follow', 'r1', '--until', 'ApprovalRequested'], settled, ENV, { fetch, follow: PATIENT })).toBe(1);
    expect(settled.lines.at(-1)).toBe('5:5 RunCompleted answer="tick"');
    expect(settled.errText()).toBe('Run r1 settled (RunCompleted) before any ApprovalRequested event.');
    const unknown = capture();
    expect(await runCli(['events', 'follow', 'r1', '--until', 'Approved'], unknown, ENV, { fetch, follow: PATIENT })).toBe(2);
    expect(unknown.errText()).toContain('--until must be a run event type, e.g. ApprovalRequested (got "Approved"');
    expect(calls).toHaveLength(2);
  });

  it('ends with exit 0 on stop (Ctrl-C) while the run goes on', async () => {
    const stop = new AbortController();
    const { fetch } = fakeFetch((call) => sse([requested, claimed], { open: true, signal: call.signal }));
    const output = capture();
    const following = runCli(['events', 'follow', 'r1'], { ...output, out: (line) => (output.out(line), line.startsWith('2:2') && stop.abort('SIGINT')) }, ENV, { fetch, stop: stop.signal, follow: PATIENT });
    expect(await following).toBe(0);
    expect(output.lines).toHaveLength(2);
  });
});

describe('event lines', () => {
  it('summaries name what happened: model answers, tool outcomes, failures, requeues, cancellation', () => {
    const line = (type: string, data: Record<string, unknown>) => eventLine({ type, position: '9:9', data: { runId: 'r1', ...data } });
    expect(line('ModelResponded', { stepId: 'r1/r0/llm', response: { type: 'toolCalls', calls: [{ toolName: 'files.read' }, { toolName: 'files.write' }] } })).toBe(
      '9:9 ModelResponded step=r0/llm toolCalls=files.read,files.write',
    );
    expect(line('ToolExecuted', { stepId: 'r1/r0/t0', toolName: 'files.read', outcome: 'failed', error: { failureClass: 'clientError', code: 'WORKSPACE_ENTRY', message: 'no such file' } })).toBe(
      '9:9 ToolExecuted step=r0/t0 tool=files.read outcome=failed failure=clientError/WORKSPACE_ENTRY: no such file',
    );
    expect(line('RunRequeued', { cause: 'failure', requeues: 1, notBefore: Date.UTC(2026, 10, 30), failure: { failureClass: 'rateLimit', message: 'slow down' } })).toBe(
      '9:9 RunRequeued cause=failure requeues=1 notBefore=2026-11-30T00:00:00.000Z failure=rateLimit: slow down',
    );
    const v2 = (type: string, data: Record<string, unknown>) => eventLine({ type, position: '9:9', data: { runId: 'r1', ...data }, metadata: { schemaVersion: 2 } });
    expect(v2('CancelRequested', { requestedBy: { kind: 'apiKey', id: 'ops' }, reason: 'not needed' })).toBe('9:9 CancelRequested requestedBy=key:ops reason="not needed"');
    expect(v2('RunCancelled', { requestedBy: { kind: 'development' }, inFlightWrite: { stepId: 'r1/r0/t0' } })).toBe('9:9 RunCancelled requestedBy=development inFlightWrite=r0/t0');
    expect(v2('RunRequeuedByOperator', { continuationRunId: 'r2', requestedBy: { kind: 'bus', id: 'billing' }, reason: null })).toBe('9:9 RunRequeuedByOperator continuationRunId=r2 requestedBy=bus:billing');
    // An event of schema version 1 (no version stated) named its actor in free text, never checked: it reads as unverified.
    expect(line('CancelRequested', { requestedBy: 'cli:ops', reason: 'not needed' })).toBe('9:9 CancelRequested requestedBy=unverified:cli:ops reason="not needed"');
    expect(line('SomethingNew', { runId: 'r1', x: 1 })).toBe('9:9 SomethingNew {"runId":"r1","x":1}');
  });

  it('summaries of approvals and input: the calls asked for, the decision and who made it, the prompt and the answer', () => {
    const line = (type: string, data: Record<string, unknown>) => eventLine({ type, position: '9:9', data: { runId: 'r1', ...data } });
    expect(line('ApprovalRequested', { round: 2, calls: [{ toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' }], onDenial: 'tellModel' })).toBe(
      '9:9 ApprovalRequested round=2 calls=files.append(NON_IDEMPOTENT_WRITE) onDenial=tellModel',
    );
    expect(line('ToolCallPreApproved', { stepId: 'r1/r1/t0', toolName: 'files.write', effect: 'IDEMPOTENT_WRITE' })).toBe('9:9 ToolCallPreApproved step=r1/t0 tool=files.write effect=IDEMPOTENT_WRITE');
    expect(line('ToolEffectConflictRecorded', { stepId: 'r1/r1/t0', toolName: 'fs.write_file', server: 'fs', tool: 'write_file', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false, effect: 'IDEMPOTENT_WRITE', effectSource: 'hint' })).toBe(
      '9:9 ToolEffectConflictRecorded step=r1/t0 tool=fs.write_file effect=IDEMPOTENT_WRITE server=fs declared=READ_ONLY hinted=IDEMPOTENT_WRITE trusted=false',
    );
    const v2 = (type: string, data: Record<string, unknown>) => eventLine({ type, position: '9:9', data: { runId: 'r1', ...data }, metadata: { schemaVersion: 2 } });
    expect(v2('ApprovalGranted', { round: 2, decidedBy: { kind: 'apiKey', id: 'ops' }, reason: null })).toBe('9:9 ApprovalGranted round=2 decidedBy=key:ops');
    expect(v2('ApprovalDenied', { round: 2, decidedBy: { kind: 'apiKey', id: 'ops' }, reason: 'not now', onDenial: 'endRun' })).toBe('9:9 ApprovalDenied round=2 decidedBy=key:ops reason="not now" onDenial=endRun');
    expect(line('ApprovalGranted', { round: 2, decidedBy: 'ops', reason: null })).toBe('9:9 ApprovalGranted round=2 decidedBy=unverified:ops');
    expect(line('InputRequested', { stepId: 'r1/r0/t0', toolName: 'user.ask', prompt: 'Which file?' })).toBe('9:9 InputRequested step=r0/t0 tool=user.ask prompt="Which file?"');
    expect(v2('InputSubmitted', { stepId: 'r1/r0/t0', submittedBy: { kind: 'apiKey', id: 'me' }, input: 'notes.txt' })).toBe('9:9 InputSubmitted step=r0/t0 submittedBy=key:me input="notes.txt"');
  });
});
