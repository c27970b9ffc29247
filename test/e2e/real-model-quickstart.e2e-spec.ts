/**
 * The README's "Run a real agent" quickstart, proven against local fake
 * servers that answer in the vendors' documented shapes: the service runs
 * with `config/agents.openai.yaml` and `config/agents.anthropic.yaml` as they
 * are, their `baseUrlEnv` variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL)
 * pointing at the fakes, an API key in the environment; the quickstart's
 * `agent-ledger runs start` drives the agent through a tool call and a write
 * that waits for approval, to its answer. Then the key is searched for, and
 * must be in no event, no file of the data folder, no log line, no CLI output
 * and no API answer, even after the model server echoed it in an error.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStatusRow } from '@agent-ledger/projections';
import type { CliResult } from './support/cli-process';
import { runCliProcess } from './support/cli-process';
import { entryArgs, serviceProcessEnv } from './support/entry-point';
import type { HttpService } from './support/http-service';
import { eventually, request, startHttpService } from './support/http-service';
import type { FakeReply, RecordedRequest } from '../support/fake-model-server';
import { FakeModelServer, anthropicError, anthropicMessage, chatCompletion } from '../support/fake-model-server';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(180_000));

const root = join(__dirname, '..', '..');
const QUESTION = 'What time is it? Write it to time.txt.';

/** What differs between the two vendors: the agents file, the variables, the documented shapes. */
interface Vendor {
  readonly file: string;
  readonly keyEnv: string;
  readonly baseUrlEnv: string;
  /** The base URL to give the service for the fake at `origin`. */
  readonly baseUrl: (origin: string) => string;
  readonly path: string;
  /** The key as the fake received it. */
  readonly keyOf: (seen: RecordedRequest) => unknown;
  /** clock.now, then files.write { path: time.txt, content: 12:00 }, then `answer`. */
  readonly replies: (answer: string) => readonly FakeReply[];
  /** The clock's result, as the second request carried it back to the model. */
  readonly clockResultOf: (body: unknown) => unknown;
  /** The write's result, as the third request carried it back (with its error flag). */
  readonly writeResultOf: (body: unknown) => { readonly text: string; readonly isError: boolean };
  /** An error body that echoes the key the fake received. */
  readonly echo: (key: string) => unknown;
}

const OPENAI: Vendor = {
  file: 'config/agents.openai.yaml',
  keyEnv: 'OPENAI_API_KEY',
  baseUrlEnv: 'OPENAI_BASE_URL',
  baseUrl: (origin) => `${origin}/v1`,
  path: '/v1/chat/completions',
  keyOf: (seen) => seen.headers['authorization'],
  replies: (answer) => [
    { status: 200, body: chatCompletion({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'clock__now', arguments: '{}' } }] }, 'tool_calls') },
    {
      status: 200,
      body: chatCompletion(
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'files__write', arguments: '{"path":"time.txt","content":"12:00"}' } }] },
        'tool_calls',
      ),
    },
    { status: 200, body: chatCompletion({ role: 'assistant', content: answer }) },
  ],
  clockResultOf: (body) => (body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'tool')?.content,
  writeResultOf: (body) => {
    const tools = (body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool');
    const text = tools[tools.length - 1]?.content ?? '';
    return { text, isError: text.startsWith('{"error"') };
  },
  echo: (key) => ({ error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', code: 'invalid_api_key' } }),
};

/** The tool_result blocks of an Anthropic request, in order. */
function toolResults(body: unknown): { content: string; is_error?: boolean }[] {
  return (body as { messages: { role: string; content: { type: string; content: string; is_error?: boolean }[] }[] }).messages
    .flatMap((m) => m.content)
    .filter((block) => block.type === 'tool_result');
}

const ANTHROPIC: Vendor = {
  file: 'config/agents.anthropic.yaml',
  keyEnv: 'ANTHROPIC_API_KEY',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  baseUrl: (origin) => origin,
  path: '/v1/messages',
  keyOf: (seen) => seen.headers['x-api-key'],
  replies: (answer) => [
    { status: 200, body: anthropicMessage([{ type: 'tool_use', id: 'toolu_01', name: 'clock__now', input: {} }]) },
    {
      status: 200,
      body: anthropicMessage([
        { type: 'text', text: 'I will write the time.' },
        { type: 'tool_use', id: 'toolu_02', name: 'files__write', input: { path: 'time.txt', content: '12:00' } },
      ]),
    },
    { status: 200, body: anthropicMessage([{ type: 'text', text: answer }]) },
  ],
  clockResultOf: (body) => toolResults(body)[0]?.content,
  writeResultOf: (body) => {
    const last = toolResults(body).pop();
    return { text: last?.content ?? '', isError: last?.is_error === true };
  },
  echo: (key) => anthropicError('authentication_error', `invalid x-api-key: ${key}`),
};

function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`expected exit ${code}, got ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

/** Every file under `dir`, as bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });
}

describe.each([
  ['openai', OPENAI, 'approve', 'It is 12:00; I wrote it to time.txt.'],
  ['anthropic', ANTHROPIC, 'deny', 'It is 12:00; time.txt was not written: the write was denied.'],
] as const)('the quickstart with %s (config as shipped, the model a local fake)', (_name, vendor, decision, answer) => {
  const fake = new FakeModelServer();
  const key = `sk-e2e-${randomBytes(16).toString('hex')}`;
  let service: HttpService;
  let cliEnv: Record<string, string>;
  const printed: string[] = [];

  async function cli(args: readonly string[]): Promise<CliResult> {
    const result = await runCliProcess(args, cliEnv);
    printed.push(result.stdout, result.stderr);
    return result;
  }

  async function settled(runId: string): Promise<RunStatusRow> {
    return eventually(
      async () => {
        const answer = await request<RunStatusRow>(service.baseUrl, 'GET', `/runs/${runId}`);
        return answer.status === 200 && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(answer.body.status) ? answer.body : undefined;
      },
      `run ${runId} to settle`,
      30_000,
    );
  }

  beforeAll(async () => {
    const origin = await fake.start();
    service = await startHttpService({
      agentsFile: join(root, vendor.file),
      env: { [vendor.keyEnv]: key, [vendor.baseUrlEnv]: vendor.baseUrl(origin) },
    });
    cliEnv = { AGENT_LEDGER_URL: service.baseUrl };
  });

  afterAll(async () => {
    await service?.stop();
    await fake.stop();
  });

  it(`runs the agent: the clock, then a write that waits for a person (${decision}), then the answer; the model got the key and every result`, async () => {
    fake.script(vendor.replies(answer));

    const started = await cli(['runs', 'start', '--agent', 'assistant', '--mode', 'interactive', '--input', QUESTION]);
    // Interactive: the answer of the request is the run as it stands, waiting for the write's approval (exit 1: not completed).
    expectExit(started, 1);
    expect(started.stdout).toMatch(/^status\s+WAITING_FOR_APPROVAL$/m);
    const runId = /^run\s+(\S+)$/m.exec(started.stdout)?.[1];
    if (runId === undefined) throw new Error(`no run id in:\n${started.stdout}`);

    const decided = await cli(['runs', decision, runId, '--reason', 'quickstart check']);
    expectExit(decided, 0);
    const run = await settled(runId);
    expect(run).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED' });
    const followed = await cli(['events', 'follow', runId]);
    expectExit(followed, 0);
    expect(followed.stdout).toContain(`RunCompleted answer=${JSON.stringify(answer)}`);

    expect(fake.requests).toHaveLength(3);
    for (const seen of fake.requests) {
      expect(seen.method).toBe('POST');
      expect(seen.url).toBe(vendor.path);
      expect(vendor.keyOf(seen)).toBe(vendor === OPENAI ? `Bearer ${key}` : key);
    }
    expect(String(vendor.clockResultOf(fake.requests[1]?.body))).toMatch(/\d{4}-\d{2}-\d{2}T/);
    const write = vendor.writeResultOf(fake.requests[2]?.body);
    if (decision === 'approve') {
      expect(readFileSync(join(service.workspaceDir, 'time.txt'), 'utf8')).toBe('12:00');
      expect(write.isError).toBe(false);
    } else {
      expect(existsSync(join(service.workspaceDir, 'time.txt'))).toBe(false);
      expect(write).toMatchObject({ isError: true, text: expect.stringContaining('The call of files.write was denied by a person: quickstart check') as unknown as string });
    }
  });

  it('fails a run whose model server refuses the key and echoes it (auth, not retried): the recorded failure shows [redacted], never the key', async () => {
    fake.answer((req, res) => {
      const received = String(req.headers['x-api-key'] ?? req.headers['authorization'] ?? '').replace(/^Bearer /, '');
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(vendor.echo(received)));
    });
    const started = await cli(['runs', 'start', '--agent', 'assistant', '--input', QUESTION, '-q']);
    expectExit(started, 0);
    const run = await settled(started.stdout.trim());
    expect(run).toMatchObject({ status: 'FAILED', reason: 'NOT_RETRYABLE', failureClass: 'auth' });
    expect(run.failureMessage).toContain('HTTP 401');
    expect(run.failureMessage).toContain('[redacted]');
    expect(fake.requests).toHaveLength(1);
  });

  it('leaves the key in no event, no file of the data folder, no log line, no CLI output and no API answer', async () => {
    const runs = await request<{ runs: { runId: string }[] }>(service.baseUrl, 'GET', '/runs?agent=assistant&limit=50');
    expect(runs.body.runs.length).toBe(2);
    const paths = ['/agents', '/openapi.json', '/runs?agent=assistant', '/approvals?state=approved', '/approvals?state=denied', '/audit/review', '/metrics', '/ready', '/health'];
    for (const { runId } of runs.body.runs) {
      paths.push(`/runs/${runId}`, `/runs/${runId}/steps`);
      const followed = await cli(['events', 'follow', runId]);
      expect(followed.stdout).toMatch(/RunCompleted|RunFailed/);
    }
    const answers = await Promise.all(
      paths.map(async (path) => {
        const response = await fetch(`${service.baseUrl}${path}`);
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        return { path, text: await response.text() };
      }),
    );
    const openapi = answers.find((answer) => answer.path === '/openapi.json')?.text ?? '';
    expect(openapi).toContain('x-agent-ledger-agents');
    for (const answer of answers) expect({ path: answer.path, hasKey: answer.text.includes(key) }).toEqual({ path: answer.path, hasKey: false });

    const files = filesUnder(service.dataDir);
    expect(files.some((file) => file.path.endsWith('agent-ledger.sqlite'))).toBe(true);
    // The events themselves: the one the first run's model call recorded is in the store, and the key is not.
    expect(files.some((file) => file.bytes.includes(answer))).toBe(true);
    for (const file of files) expect({ file: file.path, hasKey: file.bytes.includes(key) }).toEqual({ file: file.path, hasKey: false });

    expect(service.output()).toContain('agent-ledger listening on');
    expect(service.output()).not.toContain(key);
    expect(printed.join('\n')).not.toContain(key);
  });
});

describe('the service with config/agents.anthropic.yaml and no key', () => {
  it('refuses to start (exit 3), naming the variable that must hold the key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-ledger-nokey-'));
    try {
      const child = spawn(process.execPath, entryArgs('service'), {
        cwd: root,
        env: serviceProcessEnv({
          AGENT_LEDGER_DATA_DIR: dataDir,
          AGENTS_CONFIG: join(root, 'config/agents.anthropic.yaml'),
          ANTHROPIC_API_KEY: '',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
      expect({ code, output }).toEqual({ code: 3, output: expect.stringContaining('agent-ledger: invalid configuration: The environment variable ANTHROPIC_API_KEY (provider.apiKeyEnv) is not set') as unknown as string });
      expect(output).not.toContain('listening on');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
