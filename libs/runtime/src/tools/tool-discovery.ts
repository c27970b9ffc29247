import { Inject, Injectable } from '@nestjs/common';
import type { OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ConfigurationError } from '@agent-ledger/domain';
import type { AgentTool } from './agent-tool';
import { getToolMetadata } from './tool.decorator';
import { ToolRegistry } from './tool-registry';

/**
 * Registers, when the tools module starts, every provider of the application
 * (from any module) whose class is decorated with `@Tool`.
 */
@Injectable()
export class ToolDiscovery implements OnModuleInit {
  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(ToolRegistry) private readonly registry: ToolRegistry,
  ) {}

  onModuleInit(): void {
    this.discover();
  }

  /**
   * Registers every `@Tool` provider not registered yet.
   *
   * @throws {@link ConfigurationError} for a tool provider that is not a
   *   singleton (request-scoped or transient): a tool's effect is read once,
   *   from one instance.
   */
  discover(): void {
    const seen = new Set<unknown>(this.registry.names().map((name) => this.registry.get(name)?.tool));
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      const metadata = getToolMetadata(wrapper.metatype) ?? getToolMetadata(instance);
      if (metadata === undefined) {
        continue;
      }
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        throw new ConfigurationError(`Tool ${metadata.name} must be a singleton provider (default scope), not request-scoped or transient`);
      }
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) {
        continue;
      }
      seen.add(instance);
      this.registry.register(instance as AgentTool & object);
    }
  }
}
