/**
 * A Streamable HTTP MCP server (the tests' own, stateful, behind a bearer
 * token): a header whose secret comes from the environment, a refused
 * credential at start, and a session the server forgot (404): re-established,
 * a read or an idempotent write sent again with the same idempotency key, a
 * non-idempotent write not.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { ConfigurationError } from '@agent-ledger/domain';
import type { AgentTool, McpServerBinding } from '@agent-ledger/runtime';
import { eventually } from '@agent-ledger/runtime/testing';
import { startMcpServers } from './mcp-servers';
import type { McpServers } from './mcp-servers';
import { CapturingLogger, TEST_SERVER, callContext, countFolder, stdioBinding } from './testing';

const TOKEN = 's3cret-for-the-test';

describe('a Streamable HTTP MCP server', () => {
  const folder = countFolder();
  const logger = new CapturingLogger();
  let child: ChildProcess;
  let url: string;
  let servers: McpServers;
  const tool = (name: string): AgentTool => {
    const found = servers.tools.find(({ origin }) => origin.tool === name);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found.tool;
  };
  const binding = (tools: McpServerBinding['tools']): McpServerBinding => ({
    ...stdioBinding('remote', TEST_SERVER, []),
    transport: { type: 'http', url, headers: { Authorization: { fromEnv: 'REMOTE_MCP_TOKEN', prefix: 'Bearer ' } } },
    tools,
  });
  const forget = async () => {
    const answer = await fetch(new URL('/forget', url), { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
  };
  const lines = (key: string) => folder.lines().filter((line) => line.key === key);

  beforeAll(async () => {
    child = spawn(process.execPath, [TEST_SERVER, '--http', '0'], { env: { ...process.env, COUNT_FILE: folder.countFile, TEST_SERVER_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const port = await eventually(() => /listening (\d+)/.exec(output)?.[1], 20_000, 'the test server to listen');
    url = `http://127.0.0.1:${port}/mcp`;
    servers = await startMcpServers(
      [
        binding([
          { tool: 'count', name: 'remote.count', effect: 'IDEMPOTENT_WRITE' },
          { tool: 'append', name: 'remote.append' },
          { tool: 'liar', name: 'remote.liar', effect: 'READ_ONLY' },
        ]),
      ],
      { logger, env: { REMOTE_MCP_TOKEN: TOKEN } },
    );
  }, 60_000);

  afterAll(async () => {
    await servers?.close();
    child?.kill();
    folder.remove();
  });

  it('connects with the header whose secret is read from the environment, and calls a tool', async () => {
    await expect(tool('count').execute({ label: 'first' }, callContext('h-1'))).resolves.toMatchObject({ structuredContent: { key: 'agent-ledger:h-1', executions: 1 } });
    expect(logger.matching(/^MCP server remote \(http\): 3 tools bound of 10 offered$/)).toHaveLength(1);
  });

  it('refuses at start a server that refuses the credentials (HTTP 401)', async () => {
    const refusal = await startMcpServers([binding([{ tool: 'count', name: 'remote.count' }])], { logger: new CapturingLogger(), env: { REMOTE_MCP_TOKEN: 'wrong' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigurationError);
    expect((refusal as Error).message).toMatch(/^MCP bindings refused \(1 problem\):\n {2}- mcpServers "remote" \(the test\): could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp: HTTP 401 \(the credentials were refused: check its headers\)/);
    expect((refusal as Error).message).not.toContain('wrong');
  });

  it('re-establishes a forgotten session (404) and sends an idempotent write again with the same key, executed once', async () => {
    await forget();
    await expect(tool('count').execute({ label: 'again' }, callContext('h-2'))).resolves.toMatchObject({ structuredContent: { key: 'agent-ledger:h-2', executions: 1 } });
    expect(lines('agent-ledger:h-2')).toHaveLength(1);
    expect(logger.matching(/^MCP server remote no longer knows the session \(HTTP 404\): establishing a new one$/).length).toBeGreaterThanOrEqual(1);
  });

  it('re-establishes the session once for two calls that met the same 404, and sends each again', async () => {
    await forget();
    const before = logger.matching(/no longer knows the session \(HTTP 404\)/).length;
    const [first, second] = await Promise.all([tool('count').execute({ label: 'a' }, callContext('h-2a')), tool('count').execute({ label: 'b' }, callContext('h-2b'))]);
    expect([first, second]).toEqual([
      expect.objectContaining({ structuredContent: expect.objectContaining({ key: 'agent-ledger:h-2a', executions: 1 }) }),
      expect.objectContaining({ structuredContent: expect.objectContaining({ key: 'agent-ledger:h-2b', executions: 1 }) }),
    ]);
    expect(logger.matching(/no longer knows the session \(HTTP 404\)/).length - before).toBe(1);
    expect(servers.states()[0]).toMatchObject({ status: 'up' });
  });

  it('sends a read again after a forgotten session', async () => {
    await forget();
    await expect(tool('liar').execute({ line: 'r' }, callContext('h-3'))).resolves.toMatchObject({ isError: false });
    expect(lines('agent-ledger:h-3')).toHaveLength(1);
  });

  it('does not send a non-idempotent write again: MCP_SESSION_EXPIRED (connection); the next call uses the new session', async () => {
    await forget();
    await expect(tool('append').execute({ line: 'once' }, callContext('h-4'))).rejects.toMatchObject({ code: 'MCP_SESSION_EXPIRED', failureClass: 'connection' });
    expect(lines('agent-ledger:h-4')).toEqual([]);
    await expect(tool('append').execute({ line: 'next' }, callContext('h-5'))).resolves.toMatchObject({ content: [{ type: 'text', text: 'appended next' }] });
  });
});
