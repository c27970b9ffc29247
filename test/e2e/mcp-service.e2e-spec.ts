/**
 * MCP servers bound in the agents file of the real service (the built
 * program with CI=true): the service starts them, checks every binding and
 * refuses, exit code 3 and nothing created, one it cannot honour (serve and
 * the worker verb); it serves a run whose agent writes and reads through the
 * published filesystem server, shows each MCP tool with its effect and where
 * the effect came from, names the servers on its start line; and a worker
 * process runs servers of its own.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceServer, TEST_SERVER } from '@agent-ledger/mcp/testing';
import { runCliProcess } from './support/cli-process';
import { entryArgs, serviceProcessEnv } from './support/entry-point';
import type { HttpService } from './support/http-service';
import { request, startHttpService } from './support/http-service';
import { scaled } from '../support/time-scale';

const root = join(__dirname, '..', '..');
const node = JSON.stringify(process.execPath);

/**
 * The agents file: the filesystem server in `files`, the tests' server counting in `countFile` (its tool `count`
 * bound under the name `countTool`, misspelt in the refusal's test), `moreServers` (YAML list items), two agents.
 */
function agentsYaml(files: string, countFile: string, { countTool = 'count', moreServers = '' }: { countTool?: string; moreServers?: string } = {}): string {
  return `mcpServers:
  - name: fs
    transport:
      type: stdio
      command: ${node}
      args: [${JSON.stringify(referenceServer('server-filesystem'))}, ${JSON.stringify(files)}]
    tools:
      read_text_file: { effect: READ_ONLY }
      write_file: { effect: IDEMPOTENT_WRITE, operationDeadlineSeconds: 30 }
  - name: t
    transport:
      type: stdio
      command: ${node}
      args: [${JSON.stringify(TEST_SERVER)}]
      env: { COUNT_FILE: ${JSON.stringify(countFile)} }
    tools:
      ${countTool}: { effect: IDEMPOTENT_WRITE }
      liar: { effect: NON_IDEMPOTENT_WRITE }
${moreServers}agents:
  - name: clerk
    instructions: Keep the groceries.
    tools: [fs.write_file, fs.read_text_file]
    approvals: { preApproved: [fs.write_file] }
    provider:
      type: scripted
      script:
        - toolCalls: [{ tool: fs.write_file, arguments: { path: groceries.txt, content: "milk, bread" } }]
        - toolCalls: [{ tool: fs.read_text_file, arguments: { path: groceries.txt } }]
        - final: "Read back: {{result:fs.read_text_file/structuredContent/content}}"
          finalIfFailed: "write {{outcome:fs.write_file}} ({{error:fs.write_file}}), read {{outcome:fs.read_text_file}}"
  - name: counter
    instructions: Count once.
    tools: [t.${countTool}]
    approvals: { preApproved: [t.${countTool}] }
    provider:
      type: scripted
      script:
        - toolCalls: [{ tool: t.${countTool}, arguments: { label: queued } }]
        - final: "counted"
`;
}

interface AgentTools {
  agents: { name: string; tools: { name: string; effect: string; source: Record<string, unknown> | null }[] }[];
}

describe('MCP servers bound to the real service (e2e)', () => {
  let dir: string;
  let files: string;
  let countFile: string;
  let service: HttpService | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-mcp-e2e-'));
    files = mkdtempSync(join(tmpdir(), 'agent-ledger-mcp-files-'));
    countFile = join(dir, 'count.jsonl');
  });

  afterEach(async () => {
    await service?.stop();
    service = undefined;
    rmSync(dir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  const counted = (): { tool: string; key: string | null; pid: number }[] =>
    existsSync(countFile)
      ? readFileSync(countFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as { tool: string; key: string | null; pid: number })
      : [];

  it('refuses bindings it cannot honour, in serve and in the worker verb: exit code 3, each server and tool named, the data folder never created', async () => {
    const ghost = `  - name: ghost\n    transport: { type: stdio, command: ${JSON.stringify(join(dir, 'no-such-server'))} }\n    tools: { anything: { effect: READ_ONLY } }\n`;
    const agentsFile = join(dir, 'agents.yaml');
    writeFileSync(agentsFile, agentsYaml(files, countFile, { countTool: 'cuont', moreServers: ghost }));
    const dataDir = join(dir, 'data');
    const child = spawn(process.execPath, [...entryArgs('service')], {
      cwd: root,
      env: serviceProcessEnv({ AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: agentsFile }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.resume();
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect({ code, stderr }).toEqual({ code: 3, stderr: expect.stringContaining('agent-ledger: invalid configuration: MCP bindings refused (2 problems):') });
    expect(stderr).toContain(`mcpServers "t" (${agentsFile}): tool "cuont" is not offered by the server`);
    expect(stderr).toContain('did you mean count?');
    expect(stderr).toContain(`mcpServers "ghost" (${agentsFile}): could not start ${join(dir, 'no-such-server')}`);
    expect(existsSync(dataDir)).toBe(false);

    const worker = await runCliProcess(['worker'], { AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: agentsFile });
    expect(worker.code).toBe(3);
    expect(worker.stderr).toContain(`mcpServers "t" (${agentsFile}): tool "cuont" is not offered by the server`);
    expect(existsSync(dataDir)).toBe(false);
  }, scaled(120_000));

  it("serves a run that writes and reads through the filesystem server, each MCP tool shown with its effect's source, the servers on the start line", async () => {
    service = await startHttpService({ agentsYaml: agentsYaml(files, countFile), env: { WORKER_CONCURRENCY: '1' } });
    expect(service.output()).toMatch(/; mcp: fs \(stdio, pid \d+, 2 tools\), t \(stdio, pid \d+, 2 tools; 1 effect conflict\)\)/);
    expect(service.output()).toContain('MCP tool t.liar (t.liar): the binding declares NON_IDEMPOTENT_WRITE, the server\'s hints say READ_ONLY');

    const agents = await request<AgentTools>(service.baseUrl, 'GET', '/agents');
    expect(agents.body.agents.find((agent) => agent.name === 'clerk')?.tools).toEqual([
      { name: 'fs.write_file', effect: 'IDEMPOTENT_WRITE', source: { kind: 'mcp', server: 'fs', tool: 'write_file', effectSource: 'declared', declared: 'IDEMPOTENT_WRITE', hinted: 'IDEMPOTENT_WRITE', trusted: false, conflict: false } },
      { name: 'fs.read_text_file', effect: 'READ_ONLY', source: { kind: 'mcp', server: 'fs', tool: 'read_text_file', effectSource: 'declared', declared: 'READ_ONLY', hinted: 'READ_ONLY', trusted: false, conflict: false } },
    ]);

    const started = await request<{ runId: string; run: { status: string; answer: string } }>(service.baseUrl, 'POST', '/runs', { agent: 'clerk', input: 'groceries', mode: 'interactive' });
    expect(started.body.run).toMatchObject({ status: 'COMPLETED', answer: 'Read back: milk, bread' });
    expect(readFileSync(join(files, 'groceries.txt'), 'utf8')).toBe('milk, bread');

    const deadline = Date.now() + scaled(30_000);
    let steps: { toolName: string | null; effect: string | null; outcome?: string | null }[] = [];
    while (steps.filter((step) => step.toolName !== null).length < 2 && Date.now() < deadline) {
      steps = (await request<{ steps: typeof steps }>(service.baseUrl, 'GET', `/runs/${started.body.runId}/steps`)).body.steps;
      if (steps.filter((step) => step.toolName !== null).length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(steps.filter((step) => step.toolName !== null).map((step) => [step.toolName, step.effect])).toEqual([
      ['fs.write_file', 'IDEMPOTENT_WRITE'],
      ['fs.read_text_file', 'READ_ONLY'],
    ]);
  }, scaled(120_000));

  it('a worker process runs MCP servers of its own: a queued run calls the server the worker process started, with the step idempotency key', async () => {
    service = await startHttpService({ agentsYaml: agentsYaml(files, countFile), env: { WORKER_PROCESSES: '1', WORKER_CONCURRENCY: '1' } });
    const servedPid = Number(/; mcp: fs \(stdio, pid \d+, 2 tools\), t \(stdio, pid (\d+)/.exec(service.output())?.[1]);
    expect(servedPid).toBeGreaterThan(0);
    const started = await request<{ runId: string }>(service.baseUrl, 'POST', '/runs', { agent: 'counter', input: 'once', mode: 'queued' });
    expect(started.status).toBe(202);
    const deadline = Date.now() + scaled(60_000);
    let status = '';
    while (status !== 'COMPLETED' && Date.now() < deadline) {
      status = (await request<{ status: string }>(service.baseUrl, 'GET', `/runs/${started.body.runId}`)).body.status;
      if (status !== 'COMPLETED') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('COMPLETED');
    const lines = counted();
    expect(lines).toEqual([expect.objectContaining({ tool: 'count', key: expect.stringMatching(/^agent-ledger:/) })]);
    expect(lines[0]?.pid).not.toBe(servedPid);
  }, scaled(120_000));
});
