import { Inject, Injectable, Module } from '@nestjs/common';
import type { BeforeApplicationShutdown, DynamicModule, OnModuleInit } from '@nestjs/common';
import { ToolRegistry } from '@agent-ledger/runtime';
import type { McpServerBinding } from '@agent-ledger/runtime';
import { startMcpServers } from './mcp-servers';
import type { McpServers, McpServersOptions } from './mcp-servers';

/** The injection token of the application's {@link McpServers} (provided by {@link McpModule}). */
export const MCP_SERVERS = 'AGENT_LEDGER_MCP_SERVERS';

/** Registers the servers' tools when the modules start, and closes the servers before the application shuts down. */
@Injectable()
class McpToolsLifecycle implements OnModuleInit, BeforeApplicationShutdown {
  constructor(
    @Inject(MCP_SERVERS) private readonly servers: McpServers,
    @Inject(ToolRegistry) private readonly registry: ToolRegistry,
  ) {}

  onModuleInit(): void {
    // Every module's onModuleInit runs before any onApplicationBootstrap: the tools are there when AgentToolsCheck looks.
    this.servers.registerInto(this.registry);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.servers.close();
  }
}

/**
 * The tools of bound MCP servers in a Nest application that has a
 * `ToolRegistry` (`ToolsModule`, `AgentLedgerRuntimeModule`,
 * `AgentLedgerModule`): registered (`registerExternal`) when the modules
 * start, before `AgentToolsCheck` checks the agents' tools and before any
 * worker runs a step; the servers closed (restarts stopped first) before the
 * application shuts down.
 */
@Module({})
export class McpModule {
  /**
   * Servers already started and checked by {@link startMcpServers} (the
   * service starts them before it opens its stores, so that a refused
   * binding creates nothing).
   */
  static forServers(servers: McpServers): DynamicModule {
    return { module: McpModule, providers: [{ provide: MCP_SERVERS, useValue: servers }, McpToolsLifecycle], exports: [MCP_SERVERS] };
  }

  /**
   * Starts and checks the bindings while the application is built (an async
   * provider: a refusal is the `ConfigurationError` of {@link startMcpServers},
   * thrown by `NestFactory.create`).
   */
  static forRoot(bindings: readonly McpServerBinding[], options: McpServersOptions = {}): DynamicModule {
    return {
      module: McpModule,
      providers: [{ provide: MCP_SERVERS, useFactory: () => startMcpServers(bindings, options) }, McpToolsLifecycle],
      exports: [MCP_SERVERS],
    };
  }
}
