/**
 * McpToolsModule in a Nest application: the tools of servers started before
 * Nest are registered when the modules initialise, so that AgentToolsCheck
 * (onApplicationBootstrap) and the workers find them; the host closes the
 * servers after the application.
 */
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RuntimeMetrics, ToolRegistry, ToolsModule } from '@agent-ledger/runtime';
import { startMcpServers } from './mcp-servers';
import { McpToolsModule } from './mcp-tools.module';
import { callContext, CapturingLogger, TEST_SERVER, stdioBinding } from './testing';

describe('McpToolsModule', () => {
  it('registers the tools of started servers, with their origins and deadlines, before the application bootstraps', async () => {
    const servers = await startMcpServers([stdioBinding('test', TEST_SERVER, [{ tool: 'count', effect: 'IDEMPOTENT_WRITE' }, { tool: 'fail', effect: 'READ_ONLY' }])], {
      logger: new CapturingLogger(),
    });
    try {
      const module = await Test.createTestingModule({
        imports: [ToolsModule.forRoot({ builtins: { clock: false, user: false, files: false } }), McpToolsModule.forRoot(servers)],
      }).compile();
      const app = module.createNestApplication({ logger: false });
      await app.init();
      const registry = app.get(ToolRegistry);
      expect(registry.names()).toEqual(['test.count', 'test.fail']);
      expect(registry.get('test.count')).toMatchObject({ effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 300, origin: { kind: 'mcp', server: 'test', tool: 'count', source: 'declared' } });
      // A read's deadline: 60 s by default, not none (a hung server must not hold a segment until its lease expires).
      expect(registry.get('test.fail')).toMatchObject({ effect: 'READ_ONLY', operationDeadlineSeconds: 60 });
      await app.close();
      expect(servers.states().map((state) => state.status)).toEqual(['up']);
    } finally {
      await servers.close();
    }
    expect(servers.states().map((state) => state.status)).toEqual(['closed']);
  }, 60_000);

  it("counts the servers' restarts in the runtime's metrics, which another module of the application provides", async () => {
    @Module({ providers: [RuntimeMetrics], exports: [RuntimeMetrics] })
    class MetricsModule {}
    const servers = await startMcpServers([stdioBinding('test', TEST_SERVER, [{ tool: 'crash', effect: 'READ_ONLY' }])], { logger: new CapturingLogger() });
    try {
      const module = await Test.createTestingModule({
        imports: [ToolsModule.forRoot({ builtins: { clock: false, user: false, files: false } }), MetricsModule, McpToolsModule.forRoot(servers)],
      }).compile();
      const app = module.createNestApplication({ logger: false });
      await app.init();
      const metrics = app.get(RuntimeMetrics);
      const crash = app.get(ToolRegistry).get('test.crash');
      await expect(crash?.tool.execute({}, callContext('step-crash'))).rejects.toMatchObject({ failureClass: 'connection' });
      const deadline = Date.now() + 30_000;
      while (metrics.get('mcpServerRestarts') < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(metrics.get('mcpServerRestarts')).toBe(1);
      await app.close();
    } finally {
      await servers.close();
    }
  }, 60_000);
});
