/**
 * The published reference servers, installed as test dependencies and
 * started over stdio: the filesystem server (a write then a read in a temp
 * folder, a path outside it refused) and the everything server (an image,
 * embedded resources, resource links and structured content recorded; a
 * task-required tool refused at start; a long-running tool past its
 * deadline).
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@agent-ledger/domain';
import { getToolMetadata } from '@agent-ledger/runtime';
import type { AgentTool } from '@agent-ledger/runtime';
import { startMcpServers } from './mcp-servers';
import type { McpServers } from './mcp-servers';
import { CapturingLogger, callContext, referenceServer, stdioBinding } from './testing';

describe('the reference MCP servers', () => {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'agent-ledger-mcp-fs-')));
  const logger = new CapturingLogger();
  let servers: McpServers;
  const tool = (server: string, name: string): AgentTool => {
    const found = servers.tools.find(({ origin }) => origin.server === server && origin.tool === name);
    if (found === undefined) throw new Error(`no tool ${server}.${name}`);
    return found.tool;
  };

  beforeAll(async () => {
    servers = await startMcpServers(
      [
        stdioBinding('fs', referenceServer('server-filesystem'), [{ tool: 'write_file', effect: 'IDEMPOTENT_WRITE' }, { tool: 'read_text_file', effect: 'READ_ONLY' }, { tool: 'edit_file' }], {
          args: [workspace],
        }),
        stdioBinding(
          'everything',
          referenceServer('server-everything'),
          [
            { tool: 'get-tiny-image', effect: 'READ_ONLY' },
            { tool: 'get-resource-reference', effect: 'READ_ONLY' },
            { tool: 'get-resource-links', effect: 'READ_ONLY' },
            { tool: 'get-structured-content', effect: 'READ_ONLY' },
            { tool: 'trigger-long-running-operation', effect: 'READ_ONLY', operationDeadlineSeconds: 1 },
            { tool: 'gzip-file-as-resource', effect: 'IDEMPOTENT_WRITE' },
          ],
          { maxInlineBytes: 100 },
        ),
      ],
      { logger },
    );
  }, 60_000);

  afterAll(async () => {
    await servers?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('registers their tools with the effects resolved from the declarations and the hints (a schema with format: uri included)', () => {
    expect(servers.tools.map(({ origin }) => `${origin.server}.${origin.tool} ${origin.effect} ${origin.source}`)).toEqual([
      'fs.write_file IDEMPOTENT_WRITE declared',
      'fs.read_text_file READ_ONLY declared',
      'fs.edit_file NON_IDEMPOTENT_WRITE default',
      'everything.get-tiny-image READ_ONLY declared',
      'everything.get-resource-reference READ_ONLY declared',
      'everything.get-resource-links READ_ONLY declared',
      'everything.get-structured-content READ_ONLY declared',
      'everything.trigger-long-running-operation READ_ONLY declared',
      'everything.gzip-file-as-resource IDEMPOTENT_WRITE declared',
    ]);
    expect(logger.matching(/^MCP server fs \(stdio, pid \d+\): 3 tools bound of 14 offered$/)).toHaveLength(1);
    // Offered without the draft-07 $schema the servers give.
    const parameters = servers.tools.map(({ tool: instance }) => getToolMetadata(instance)?.parameters);
    expect(parameters.every((schema) => schema?.type === 'object')).toBe(true);
    expect(JSON.stringify(parameters)).not.toContain('$schema');
  });

  it('filesystem: writes a file in its folder, then reads it back', async () => {
    const written = await tool('fs', 'write_file').execute({ path: join(workspace, 'note.txt'), content: 'hello from a run' }, callContext('step-w'));
    expect(written).toMatchObject({ isError: false, content: [{ type: 'text', text: expect.stringContaining('Successfully wrote') }] });
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('hello from a run');
    const read = await tool('fs', 'read_text_file').execute({ path: join(workspace, 'note.txt') }, callContext('step-r'));
    expect(read).toMatchObject({ content: [{ type: 'text', text: 'hello from a run' }], structuredContent: { content: 'hello from a run' } });
  });

  it('filesystem: a path outside its folder is the server’s error result, MCP_TOOL_ERROR', async () => {
    await expect(tool('fs', 'read_text_file').execute({ path: '/etc/hostname' }, callContext('step-o'))).rejects.toMatchObject({
      code: 'MCP_TOOL_ERROR',
      failureClass: 'clientError',
      message: expect.stringContaining('Access denied - path outside allowed directories'),
    });
  });

  it('everything: an image over maxInlineBytes is recorded by size and digest; resources, links and structured content recorded', async () => {
    const image = (await tool('everything', 'get-tiny-image').execute({}, callContext('step-i'))) as { content: Array<Record<string, unknown>> };
    expect(image.content.find((block) => block.type === 'image')).toEqual({
      type: 'image',
      mimeType: 'image/png',
      bytes: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      omitted: true,
    });
    const reference = (await tool('everything', 'get-resource-reference').execute({ resourceType: 'Text', resourceId: 1 }, callContext('step-rr'))) as { content: Array<Record<string, unknown>> };
    expect(reference.content.find((block) => block.type === 'resource')).toMatchObject({ type: 'resource', uri: expect.stringMatching(/^demo:\/\/resource\//) });
    const links = (await tool('everything', 'get-resource-links').execute({ count: 2 }, callContext('step-l'))) as { content: Array<Record<string, unknown>> };
    expect(links.content.filter((block) => block.type === 'resource_link')).toHaveLength(2);
    const structured = await tool('everything', 'get-structured-content').execute({ location: 'Chicago' }, callContext('step-s'));
    expect(structured).toMatchObject({ structuredContent: { temperature: expect.any(Number), conditions: expect.any(String) } });
  });

  it('everything: a long-running read past its 1 s deadline fails MCP_TIMEOUT (connection)', async () => {
    const started = Date.now();
    await expect(tool('everything', 'trigger-long-running-operation').execute({ duration: 30, steps: 3 }, callContext('step-t', AbortSignal.timeout(1_000)))).rejects.toMatchObject({
      code: 'MCP_TIMEOUT',
      failureClass: 'connection',
    });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('everything: a tool that requires task-based execution is refused at start', async () => {
    const refusal = await startMcpServers([stdioBinding('research', referenceServer('server-everything'), [{ tool: 'simulate-research-query', effect: 'READ_ONLY' }])], {
      logger: new CapturingLogger(),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigurationError);
    expect((refusal as Error).message).toBe(
      'MCP bindings refused (1 problem):\n  - mcpServers "research" (the test): tool "simulate-research-query" requires task-based execution (execution.taskSupport: required), which agent-ledger does not support',
    );
  }, 60_000);
});
