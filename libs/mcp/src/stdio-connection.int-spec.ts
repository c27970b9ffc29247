/**
 * A stdio MCP server, started and supervised by the connection: the tool
 * adapter's calls (the idempotency key in `_meta`, results, error results,
 * a deadline), its stderr in the log, a crash mid-call, the restart.
 * One test server for the file (a start costs about 0.7 s of CPU).
 */
import { createHash } from 'node:crypto';
import { eventually } from '@agent-ledger/runtime/testing';
import { RuntimeMetrics } from '@agent-ledger/runtime';
import type { AgentTool } from '@agent-ledger/runtime';
import { startMcpServers } from './mcp-servers';
import type { McpServers } from './mcp-servers';
import { CapturingLogger, TEST_SERVER, callContext, countFolder, stdioBinding } from './testing';

describe('a stdio MCP server', () => {
  const folder = countFolder();
  const logger = new CapturingLogger();
  let servers: McpServers;
  const tool = (name: string): AgentTool => {
    const found = servers.tools.find((registration) => registration.origin.tool === name);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found.tool;
  };

  beforeAll(async () => {
    servers = await startMcpServers(
      [
        stdioBinding(
          'test',
          TEST_SERVER,
          [
            { tool: 'count', effect: 'IDEMPOTENT_WRITE' },
            { tool: 'fail', effect: 'READ_ONLY' },
            { tool: 'big-image', effect: 'READ_ONLY' },
            { tool: 'hang', effect: 'READ_ONLY' },
            { tool: 'append' },
            { tool: 'noise', effect: 'READ_ONLY' },
            { tool: 'crash', effect: 'READ_ONLY' },
          ],
          { env: { COUNT_FILE: folder.countFile }, maxInlineBytes: 512, maxResultBytes: 2_048 },
        ),
      ],
      { logger },
    );
  }, 60_000);

  afterAll(async () => {
    await servers?.close();
    folder.remove();
  });

  it('registers each bound tool with its resolved effect and origin, and logs the start', () => {
    expect(servers.tools.map(({ origin }) => [origin.tool, origin.effect, origin.source])).toEqual([
      ['count', 'IDEMPOTENT_WRITE', 'declared'],
      ['fail', 'READ_ONLY', 'declared'],
      ['big-image', 'READ_ONLY', 'declared'],
      ['hang', 'READ_ONLY', 'declared'],
      ['append', 'NON_IDEMPOTENT_WRITE', 'default'],
      ['noise', 'READ_ONLY', 'declared'],
      ['crash', 'READ_ONLY', 'declared'],
    ]);
    expect(logger.matching(/^MCP server test \(stdio, pid \d+\): 7 tools bound of \d+ offered$/)).toHaveLength(1);
  });

  it('passes the step’s idempotency key in _meta and records the result', async () => {
    const result = await tool('count').execute({ label: 'a' }, callContext('step-1'));
    expect(result).toEqual({
      content: [{ type: 'text', text: 'executions for agent-ledger:step-1: 1' }],
      structuredContent: { key: 'agent-ledger:step-1', executions: 1, meta: { 'agent-ledger/idempotency-key': 'agent-ledger:step-1' } },
      isError: false,
    });
    expect(folder.lines().filter((line) => line.tool === 'count')).toEqual([expect.objectContaining({ key: 'agent-ledger:step-1', label: 'a' })]);
  });

  it('logs the server’s stderr lines prefixed with the server and its pid', async () => {
    await eventually(() => (logger.matching(/^\[mcp test pid \d+\] test-server: ready on stdio$/).length === 1 ? true : undefined), 10_000, 'the ready line');
  });

  it('drops stderr lines over the throttle, counts them and says how many', async () => {
    await tool('noise').execute({ lines: 250 }, callContext('step-noise'));
    await eventually(() => (logger.matching(/more stderr lines dropped/).length > 0 ? true : undefined), 10_000, 'the dropped-lines line');
    const logged = logger.matching(/^\[mcp test pid \d+\] noise \d+$/).length;
    const dropped = servers.states()[0]?.droppedStderrLines ?? 0;
    expect(dropped).toBeGreaterThan(0);
    expect(logged + dropped).toBe(250);
  });

  it('turns an error result into MCP_TOOL_ERROR (clientError) with its text', async () => {
    await expect(tool('fail').execute({}, callContext('step-2'))).rejects.toMatchObject({
      code: 'MCP_TOOL_ERROR',
      failureClass: 'clientError',
      message: 'it broke\nsecond block',
    });
  });

  it('records binary and embedded blocks over maxInlineBytes by size and digest, a resource link by reference, smaller ones inline', async () => {
    const big = (await tool('big-image').execute({ bytes: 1000 }, callContext('step-3'))) as { content: unknown[] };
    const digest = createHash('sha256').update(Buffer.alloc(1000, 7)).digest('hex');
    expect(big.content).toEqual([
      { type: 'text', text: '1000 bytes each' },
      { type: 'image', mimeType: 'image/png', bytes: 1000, sha256: digest, omitted: true },
      { type: 'audio', mimeType: 'audio/wav', bytes: 1000, sha256: digest, omitted: true },
      { type: 'resource', uri: 'test://blob/1', mimeType: 'application/octet-stream', bytes: 1000, sha256: digest, omitted: true },
      { type: 'resource', uri: 'test://text/1', mimeType: 'text/plain', bytes: 1000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), omitted: true },
      { type: 'resource_link', uri: 'test://link/1', name: 'a link', mimeType: 'text/plain' },
    ]);
    const small = (await tool('big-image').execute({ bytes: 3 }, callContext('step-4'))) as { content: unknown[] };
    expect(small.content[1]).toEqual({ type: 'image', mimeType: 'image/png', data: Buffer.alloc(3, 7).toString('base64') });
    expect(small.content[4]).toEqual({ type: 'resource', uri: 'test://text/1', mimeType: 'text/plain', text: 'xxx' });
  });

  it("refuses a result over the binding's maxResultBytes once its large blocks are omitted: MCP_RESULT_TOO_LARGE, naming the server, nothing of it returned", async () => {
    // 500 bytes a block: each kept inline (maxInlineBytes 512), four of them over the 2,048 bytes of a result.
    await expect(tool('big-image').execute({ bytes: 500 }, callContext('step-4b'))).rejects.toMatchObject({
      code: 'MCP_RESULT_TOO_LARGE',
      failureClass: 'clientError',
      message: expect.stringMatching(/^MCP server test answered test\.big-image with a result of \d+ bytes, over its binding's maxResultBytes \(2048\)/),
    });
  });

  it('stops a call whose deadline passed: MCP_TIMEOUT (connection) for a read, and the server was sent notifications/cancelled', async () => {
    const controller = new AbortController();
    const call = tool('hang').execute({}, callContext('step-5', controller.signal));
    await eventually(() => (folder.lines().some((line) => line.tool === 'hang' && line.event === 'started' && line.key === 'agent-ledger:step-5') ? true : undefined), 10_000, 'the hang to start');
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    await expect(call).rejects.toMatchObject({ code: 'MCP_TIMEOUT', failureClass: 'connection' });
    const cancelled = await eventually(
      () => folder.lines().find((line) => line.tool === 'hang' && line.event === 'cancelled' && line.key === 'agent-ledger:step-5'),
      10_000,
      'the server to see the cancel',
    );
    expect(cancelled.reason).toMatch(/TimeoutError/);
  });

  it('fails a write stopped by a cancel with MCP_OUTCOME_UNKNOWN', async () => {
    const controller = new AbortController();
    // `append` is a NON_IDEMPOTENT_WRITE that answers at once: stopped before it is sent, it never reaches the server.
    controller.abort(new Error('The run was cancelled'));
    await expect(tool('append').execute({ line: 'x' }, callContext('step-6', controller.signal))).rejects.toMatchObject({ code: 'MCP_OUTCOME_UNKNOWN', failureClass: 'unknown' });
  });

  it('fails the calls in flight when the server exits (connection), refuses calls while it is down naming the next attempt, and starts it again', async () => {
    const before = servers.states()[0];
    const hanging = tool('hang').execute({}, callContext('step-7'));
    await eventually(() => (folder.lines().some((line) => line.tool === 'hang' && line.key === 'agent-ledger:step-7') ? true : undefined), 10_000, 'the hang to start');
    const crashing = tool('crash').execute({}, callContext('step-8'));
    await expect(crashing).rejects.toMatchObject({ code: 'MCP_CONNECTION_CLOSED', failureClass: 'connection' });
    await expect(hanging).rejects.toMatchObject({ code: 'MCP_CONNECTION_CLOSED', failureClass: 'connection' });
    expect(logger.matching(new RegExp(`^MCP server test \\(pid ${before?.pid}\\) exited: starting it again in 100 ms`))).toHaveLength(1);
    // The restart waits 100 ms; a start takes longer: the server is down now.
    await expect(tool('count').execute({}, callContext('step-down'))).rejects.toMatchObject({
      code: 'MCP_SERVER_UNAVAILABLE',
      failureClass: 'connection',
      message: expect.stringMatching(/^MCP server test is down \(since .+\); the next attempt to start it is in \d+ ms, at /),
    });
    const up = await eventually(
      async () => {
        try {
          return await tool('count').execute({ label: 'after' }, callContext('step-9'));
        } catch (error) {
          expect(error).toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE', failureClass: 'connection' });
          return undefined;
        }
      },
      10_000,
      'the server to be started again',
    );
    expect(up).toMatchObject({ structuredContent: { key: 'agent-ledger:step-9', executions: 1 } });
    const after = servers.states()[0];
    expect(after).toMatchObject({ status: 'up', restarts: 1 });
    expect(after?.pid).not.toBe(before?.pid);
  });

  it('counts its restarts and dropped stderr lines in the application’s metrics, those before they were attached included', () => {
    const metrics = new RuntimeMetrics();
    servers.countInto(metrics);
    expect(metrics.get('mcpServerRestarts')).toBe(1);
    expect(metrics.get('mcpStderrLinesDropped')).toBe(servers.states()[0]?.droppedStderrLines);
    expect(metrics.get('mcpStderrLinesDropped')).toBeGreaterThan(0);
  });
});
