/**
 * McpModule in a Nest application: the servers' tools registered before the
 * application bootstraps (so AgentToolsCheck finds them), the servers closed
 * when it shuts down.
 */
import { Test } from '@nestjs/testing';
import { ToolRegistry, ToolsModule } from '@agent-ledger/runtime';
import type { McpServers } from './mcp-servers';
import { MCP_SERVERS, McpModule } from './mcp.module';
import { CapturingLogger, TEST_SERVER, stdioBinding } from './testing';

describe('McpModule', () => {
  it('registers the tools of started servers when the modules start, and closes the servers at shutdown', async () => {
    const module = await Test.createTestingModule({
      imports: [
        ToolsModule.forRoot({ builtins: { clock: false, user: false, files: false } }),
        McpModule.forRoot([stdioBinding('test', TEST_SERVER, [{ tool: 'count', effect: 'IDEMPOTENT_WRITE' }, { tool: 'fail', effect: 'READ_ONLY' }])], { logger: new CapturingLogger() }),
      ],
    }).compile();
    const app = module.createNestApplication({ logger: false });
    await app.init();
    const registry = app.get(ToolRegistry);
    expect(registry.names()).toEqual(['test.count', 'test.fail']);
    expect(registry.get('test.count')).toMatchObject({ effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 300, origin: { kind: 'mcp', server: 'test', tool: 'count', source: 'declared' } });
    expect(registry.get('test.fail')).toMatchObject({ effect: 'READ_ONLY', operationDeadlineSeconds: 60 });
    const servers = app.get<McpServers>(MCP_SERVERS);
    expect(servers.states().map((state) => state.status)).toEqual(['up']);
    await app.close();
    expect(servers.states().map((state) => state.status)).toEqual(['closed']);
  }, 60_000);
});
