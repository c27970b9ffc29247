import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/*
 * The MCP SDK loads as CommonJS in this workspace (its `exports` give a
 * `require` build), and the reference servers installed as test
 * dependencies start and answer over stdio.
 */
describe('the MCP SDK and the reference servers', () => {
  it('lists the everything server’s tools over stdio', async () => {
    const client = new Client({ name: 'agent-ledger-test', version: '0.0.0' }, { capabilities: {} });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(require.resolve('@modelcontextprotocol/server-everything/package.json'), '..', 'dist', 'index.js')],
      stderr: 'pipe',
    });
    await client.connect(transport, { timeout: 30_000 });
    try {
      const { tools } = await client.listTools(undefined, { timeout: 30_000 });
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
      const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } }, undefined, { timeout: 30_000 });
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
