import { Inject, Injectable, Module } from '@nestjs/common';
import type { DynamicModule, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { RuntimeMetrics, ToolRegistry } from '@agent-ledger/runtime';
import type { McpServers } from './mcp-servers';

const MCP_SERVERS = Symbol('McpServers');

/**
 * Registers the started MCP servers' tools in the application's tool
 * registry, and their counters (restarts, dropped stderr lines) in the
 * runtime's metrics, when the modules initialise.
 */
@Injectable()
class McpToolsRegistration implements OnModuleInit {
  constructor(
    @Inject(MCP_SERVERS) private readonly servers: McpServers,
    private readonly registry: ToolRegistry,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.servers.registerInto(this.registry);
    const metrics = this.runtimeMetrics();
    if (metrics !== undefined) this.servers.countInto(metrics);
  }

  /**
   * The runtime's metrics, which live in its execution module (not imported
   * here: looked up in the whole application); none in an application with
   * the tools alone, where the counts are kept by the servers.
   */
  private runtimeMetrics(): RuntimeMetrics | undefined {
    try {
      return this.moduleRef.get(RuntimeMetrics, { strict: false });
    } catch {
      return undefined;
    }
  }
}

/**
 * The tools of MCP servers already started and checked (`startMcpServers`)
 * in a Nest application beside `AgentLedgerModule` (or the service's
 * `AgentLedgerHttpModule`): they are registered in its `ToolRegistry` when
 * the modules initialise, before the agents' tools are checked and the
 * workers start. The module does not close the servers: the host closes them
 * (`McpServers.close()`) after the application, once no worker can call them.
 */
@Module({})
export class McpToolsModule {
  /** The module registering `servers`' tools. */
  static forRoot(servers: McpServers): DynamicModule {
    return { module: McpToolsModule, providers: [{ provide: MCP_SERVERS, useValue: servers }, McpToolsRegistration] };
  }
}
