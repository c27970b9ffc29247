/**
 * `notifications/tools/list_changed`: the connection lists the tools again
 * (page by page) and compares each bound tool's contract with the one
 * checked at start. A bound tool removed, or whose input schema or hints
 * changed, is refused at its next call without calling the server; a tool
 * added, or a new description, is not.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '@agent-ledger/domain';
import { eventually } from '@agent-ledger/runtime/testing';
import type { AgentTool } from '@agent-ledger/runtime';
import { startMcpServers } from './mcp-servers';
import type { McpServers } from './mcp-servers';
import { CapturingLogger, TEST_SERVER, callContext, countFolder, stdioBinding } from './testing';

describe('a bound MCP server whose tool list changes', () => {
  const folder = countFolder();
  const logger = new CapturingLogger();
  let servers: McpServers;
  let step = 0;
  const call = (server: string, name: string, args: JsonObject = {}) => {
    const found = servers.tools.find(({ origin }) => origin.server === server && origin.tool === name);
    if (found === undefined) throw new Error(`no tool ${server}.${name}`);
    step += 1;
    return (found.tool as AgentTool).execute(args, callContext(`step-${step}`));
  };
  const counted = () => folder.lines().filter((line) => line.tool === 'count').length;
  const refusal = async (server: string) => {
    await eventually(() => (logger.matching(new RegExp(`^MCP server ${server}: the server changed its tool list: bound tool count (removed|input schema|hints|output schema|task support)`)).length > 0 ? true : undefined), 10_000, `${server} to see the change`);
    const before = counted();
    const error = await call(server, 'count', { label: 'x' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(counted()).toBe(before);
    return error;
  };

  beforeAll(async () => {
    const tools = [{ tool: 'count', effect: 'IDEMPOTENT_WRITE' as const }, { tool: 'change' }];
    const env = { COUNT_FILE: folder.countFile, TEST_SERVER_PAGE_SIZE: '3' };
    const restarted = stdioBinding('four', TEST_SERVER, [...tools, { tool: 'crash', effect: 'READ_ONLY' as const }], { env: { ...env, TEST_SERVER_VARIANT_FILE: join(folder.dir, 'variant') } });
    servers = await startMcpServers(
      [stdioBinding('one', TEST_SERVER, tools, { env }), stdioBinding('two', TEST_SERVER, tools, { env }), stdioBinding('three', TEST_SERVER, tools, { env }), restarted],
      { logger },
    );
  }, 60_000);

  afterAll(async () => {
    await servers?.close();
    folder.remove();
  });

  it('lists every page at start (the servers list three tools a page)', () => {
    expect(logger.matching(/^MCP server one \(stdio, pid \d+\): 2 tools bound of 10 offered$/)).toHaveLength(1);
  });

  it('logs a new description only, and ignores an added tool: the bound tool is still called', async () => {
    await call('one', 'change', { what: 'describe-count' });
    await eventually(() => (logger.matching(/^MCP server one: the server changed its tool list: bound tool count has a new description/).length > 0 ? true : undefined), 10_000, 'the description change');
    await call('one', 'change', { what: 'add' });
    await expect(call('one', 'count', { label: 'still' })).resolves.toMatchObject({ isError: false });
  });

  it('refuses a tool whose hints changed, naming the server, the tool and what changed', async () => {
    await call('one', 'change', { what: 'hints-count' });
    expect(await refusal('one')).toMatchObject({
      code: 'MCP_TOOL_CHANGED',
      failureClass: 'configuration',
      message: 'MCP tool one.count changed on server one since the service started (hints changed: idempotentHint true -> false, destructiveHint false -> true): it is refused until the service is started again and its binding checked',
    });
  });

  it('refuses a tool whose input schema changed', async () => {
    await call('two', 'change', { what: 'schema-count' });
    expect(await refusal('two')).toMatchObject({ code: 'MCP_TOOL_CHANGED', message: expect.stringContaining('(input schema changed)') });
  });

  it('checks the bound tools again after a restart: a server that came back with other hints is refused', async () => {
    writeFileSync(join(folder.dir, 'variant'), 'hints-count');
    await expect(call('four', 'crash')).rejects.toMatchObject({ code: 'MCP_CONNECTION_CLOSED' });
    await eventually(() => (logger.matching(/^MCP server four: after it was started again: bound tool count hints changed: idempotentHint true -> false/).length > 0 ? true : undefined), 10_000, 'the restart');
    const before = counted();
    await expect(call('four', 'count')).rejects.toMatchObject({ code: 'MCP_TOOL_CHANGED', message: expect.stringContaining('on server four') });
    expect(counted()).toBe(before);
  });

  it('refuses a tool that was removed', async () => {
    await call('three', 'change', { what: 'remove-count' });
    expect(await refusal('three')).toMatchObject({ code: 'MCP_TOOL_CHANGED', message: expect.stringContaining('(removed from the server’s tool list)') });
  });
});
