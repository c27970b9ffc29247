/**
 * `agent-ledger mcp` against a running service: the CLI as an MCP server on
 * stdio, driven by the MCP SDK's own client (`StdioClientTransport` starts it
 * as an MCP host would), with API keys of different scopes: the tools each
 * lists, a decision refused SCOPE_MISSING, a run whose write waits for a
 * person started and approved through MCP (the decision recorded as the
 * approver's key), a run that asks for input answered through MCP, the audit
 * review; nothing but JSON-RPC on standard output,
 * exit 0 when standard input closes (calls in flight answered), exit 3 when
 * the service cannot be reached, 4 when it refuses the key.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { entryArgs, TS_PROJECT } from './support/entry-point';
import { runCliProcess } from './support/cli-process';
import type { TestKey } from './support/http-auth-support';
import { apiKeysEnv, testKey } from './support/http-auth-support';
import type { HttpService } from './support/http-service';
import { eventually, startHttpService } from './support/http-service';
import { freePort } from '../support/free-port';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(180_000));

const root = join(__dirname, '..', '..');

/** files.append (NON_IDEMPOTENT_WRITE) is not pre-approved: each run waits for a person. */
const AGENTS_YAML = `agents:
  - name: logger
    instructions: Log one line.
    tools: [files.append]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.append
              arguments: { path: mcp.log, content: "approved through MCP\\n" }
        - final: logged
  - name: asker
    instructions: Ask which file to read.
    tools: [user.ask]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: user.ask
              arguments: { question: Which file should I read? }
        - final: thanks for the answer
`;

const text = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

/** The CLI's environment: this process's, ts-node's settings for the sources, the service's URL and `key`. */
function cliEnv(baseUrl: string, key: TestKey | null): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  delete env.AGENT_LEDGER_API_KEY;
  return { ...env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: TS_PROJECT, AGENT_LEDGER_URL: baseUrl, ...(key === null ? {} : { AGENT_LEDGER_API_KEY: key.key }) };
}

describe('agent-ledger mcp: the ledger as an MCP server on stdio (e2e)', () => {
  const submitter = testKey('submitter', ['runs:submit', 'runs:read']);
  const approver = testKey('approver', ['runs:read', 'runs:approve']);
  const auditor = testKey('auditor', ['audit:read']);
  let service: HttpService;
  const clients: { client: Client; stderr: () => string; errors: Error[] }[] = [];

  /** `agent-ledger mcp` started by the SDK's client, as an MCP host starts a server. */
  async function connect(key: TestKey): Promise<{ client: Client; stderr: () => string; errors: Error[] }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [...entryArgs('cli'), 'mcp'], env: cliEnv(service.baseUrl, key), cwd: root, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'agent-ledger-e2e', version: '0.0.0' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport, { timeout: scaled(60_000) });
    const connected = { client, stderr: () => stderr, errors };
    clients.push(connected);
    return connected;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args }, undefined, { timeout: scaled(30_000) })) as CallToolResult;
  }

  beforeAll(async () => {
    service = await startHttpService({ agentsYaml: AGENTS_YAML, env: { API_KEYS: apiKeysEnv([submitter, approver, auditor]) } });
  });

  afterAll(async () => {
    await Promise.all(clients.map(({ client }) => client.close()));
    await service?.stop();
  });

  it('lists the tools of each key, starts a run, refuses a decision without runs:approve, and approves it with a key that has it: recorded as that key', async () => {
    const asSubmitter = await connect(submitter);
    expect((await asSubmitter.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['answer_input', 'get_run', 'get_run_steps', 'list_agents', 'list_approvals', 'start_run']);
    expect(asSubmitter.stderr()).toMatch(/agent-ledger mcp: the ledger at http:\/\/127\.0\.0\.1:\d+ as an MCP server on stdio, API key "submitter", scopes runs:submit, runs:read/);

    const started = await call(asSubmitter.client, 'start_run', { agent: 'logger', input: 'log it' });
    expect(started.isError).toBeUndefined();
    const { runId } = started.structuredContent as { runId: string };
    await eventually(async () => {
      const run = await call(asSubmitter.client, 'get_run', { runId });
      const status = (run.structuredContent as { status?: string }).status;
      if (status === 'FAILED' || status === 'COMPLETED') throw new Error(`settled: ${text(run)}`);
      return status === 'WAITING_FOR_APPROVAL' ? status : undefined;
    }, `run ${runId} to wait for approval`, 30_000);
    const refused = await call(asSubmitter.client, 'decide_approval', { runId, decision: 'approve' });
    expect(text(refused)).toBe('SCOPE_MISSING: The API key "submitter" lacks the scope decide_approval needs (one of: runs:approve)');

    const asApprover = await connect(approver);
    const tools = (await asApprover.client.listTools()).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual(['decide_approval', 'get_run', 'get_run_steps', 'list_agents', 'list_approvals']);
    expect(tools.find((tool) => tool.name === 'decide_approval')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    const pending = await call(asApprover.client, 'list_approvals', { state: 'pending', runId });
    expect(pending.structuredContent).toMatchObject({ approvals: [{ runId, round: 0, state: 'pending', calls: [{ toolName: 'files.append' }] }] });
    const bad = await call(asApprover.client, 'decide_approval', { runId, decision: 'approve', round: -1 });
    expect(bad.structuredContent).toMatchObject({ code: 'INVALID_FIELD', field: 'round' });
    const decided = await call(asApprover.client, 'decide_approval', { runId, decision: 'approve', reason: 'from my MCP client' });
    expect(decided.structuredContent).toMatchObject({ runId, status: 'QUEUED', auditStatement: 'recorded' });
    const again = await call(asApprover.client, 'decide_approval', { runId, decision: 'deny' });
    expect(text(again)).toMatch(/^RUN_NOT_WAITING_FOR_APPROVAL: /);

    const completed = await eventually(async () => {
      const run = await call(asApprover.client, 'get_run', { runId });
      return (run.structuredContent as { status?: string }).status === 'COMPLETED' ? run.structuredContent : undefined;
    }, `run ${runId} to complete`, 30_000);
    expect(completed).toMatchObject({ runId, status: 'COMPLETED', startedBy: 'key:submitter' });
    const decision = await call(asApprover.client, 'list_approvals', { runId });
    expect(decision.structuredContent).toMatchObject({ approvals: [{ runId, state: 'approved', decidedBy: 'key:approver', reason: 'from my MCP client' }] });

    // A run that asks for input, answered through MCP: recorded as the submitter's answer.
    const asking = await call(asSubmitter.client, 'start_run', { agent: 'asker', input: 'read the notes' });
    const askRun = (asking.structuredContent as { runId: string }).runId;
    const question = await eventually(async () => {
      const run = await call(asSubmitter.client, 'get_run', { runId: askRun });
      return (run.structuredContent as { status?: string }).status === 'WAITING_FOR_INPUT' ? run.structuredContent : undefined;
    }, `run ${askRun} to ask for input`, 30_000);
    expect(question).toMatchObject({ runId: askRun, status: 'WAITING_FOR_INPUT' });
    const answered = await call(asSubmitter.client, 'answer_input', { runId: askRun, input: 'notes.txt' });
    expect(answered.structuredContent).toMatchObject({ runId: askRun, status: 'QUEUED', auditStatement: 'recorded' });
    await eventually(async () => {
      const run = await call(asSubmitter.client, 'get_run', { runId: askRun });
      return (run.structuredContent as { status?: string }).status === 'COMPLETED' ? true : undefined;
    }, `run ${askRun} to complete`, 30_000);

    const asAuditor = await connect(auditor);
    expect((await asAuditor.client.listTools()).tools.map((tool) => tool.name)).toEqual(['audit_review']);
    const review = await eventually(async () => {
      const answered = await call(asAuditor.client, 'audit_review', { runId });
      const body = answered.structuredContent as { totals?: Record<string, number>; findings?: boolean };
      return body.totals?.['writesAudited'] === 1 ? body : undefined;
    }, 'the audit review to count the write', 30_000);
    expect(review).toMatchObject({ totals: { writes: 1, writesAudited: 1, writesWithoutAudit: 0 }, findings: false });

    for (const { errors } of clients) expect(errors).toEqual([]);
  });

  it('writes nothing but JSON-RPC on standard output, answers what was asked before standard input closed, and exits 0', async () => {
    const child = spawn(process.execPath, [...entryArgs('cli'), 'mcp'], { cwd: root, env: cliEnv(service.baseUrl, submitter), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_run', arguments: { runId: 'no-such-run' } } },
    ];
    child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
    const killer = setTimeout(() => child.kill('SIGKILL'), scaled(60_000));
    const code = await exited;
    clearTimeout(killer);
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining('agent-ledger mcp: the ledger at') as unknown });
    const lines = stdout.split('\n').filter((line) => line !== '');
    const answers = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> });
    expect(answers.map((answer) => [answer.jsonrpc, answer.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
      ['2.0', 3],
    ]);
    expect(answers[0]?.result).toMatchObject({ serverInfo: { name: 'agent-ledger' }, capabilities: { tools: {} } });
    expect(answers[2]?.result).toMatchObject({ isError: true, structuredContent: { code: 'RUN_NOT_FOUND' } });
  });

  it('exits 3 when the service cannot be reached at start, 4 when it refuses the key, writing nothing on standard output', async () => {
    const port = await freePort();
    const unreachable = await runCliProcess(['mcp', '--url', `http://127.0.0.1:${port}`], { AGENT_LEDGER_API_KEY: submitter.key });
    expect({ code: unreachable.code, stdout: unreachable.stdout }).toEqual({ code: 3, stdout: '' });
    expect(unreachable.stderr).toMatch(/^agent-ledger mcp failed: cannot reach the service at http:\/\/127\.0\.0\.1:\d+/m);
    const badKey = await runCliProcess(['mcp'], { AGENT_LEDGER_URL: service.baseUrl, AGENT_LEDGER_API_KEY: 'not-a-key' });
    expect({ code: badKey.code, stdout: badKey.stdout }).toEqual({ code: 4, stdout: '' });
    expect(badKey.stderr).toMatch(/401 UNAUTHENTICATED/);
  });
});
