import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import type { EventStore } from '@agent-ledger/event-store';
import type { AgentDefinition } from './agents/agent-definition';
import type { Clock } from './clock/clock';
import { agentCatalogOf } from './execution/agent-catalog';
import { ExecutionModule } from './execution/execution.module';
import type { ExecutionOptions } from './execution/runtime-options';
import { TOOL_CATALOG } from './execution/tool-catalog';
import type { ModelProviderFactoryOptions } from './models/model-provider-factory';
import { createModelProvider } from './models/model-provider-factory';
import { ToolRegistry } from './tools/tool-registry';
import type { ToolsModuleOptions } from './tools/tools-module-options';
import { ToolsModule } from './tools/tools.module';

/** Everything the runtime is built from. */
export interface AgentLedgerModuleOptions extends ExecutionOptions {
  /** The store of the runs' streams (see `createEventStore`). The caller closes it. */
  readonly store: EventStore;
  /** A store of its own for the audit streams. @default store */
  readonly auditStore?: EventStore;
  /** The agents (see `loadAgentsConfig`). */
  readonly agents: readonly AgentDefinition[];
  /** Built-in and extra tools; any `@Tool` provider of the application is found as well. */
  readonly tools?: ToolsModuleOptions;
  /** How model providers reach their servers (`fetch`, environment). */
  readonly models?: ModelProviderFactoryOptions;
  /** @default the system clock */
  readonly clock?: Clock;
}

/**
 * The whole runtime in one module: tools (with their declared effects),
 * agents and their model providers, and the execution engine (command
 * handlers, workers, reaper, `RunService`), over the given stores.
 *
 * @example
 * AgentLedgerModule.forRoot({
 *   store: createEventStore(),
 *   agents: loadAgentsConfig('config/agents.yaml').agents,
 *   tools: { builtins: { files: { workspaceDir: './data/workspace' } } },
 * })
 */
@Module({})
export class AgentLedgerModule {
  static forRoot(options: AgentLedgerModuleOptions): DynamicModule {
    const agents = agentCatalogOf(
      options.agents.map((definition) => ({ definition, provider: createModelProvider(definition.provider, options.models) })),
    );
    return {
      module: AgentLedgerModule,
      imports: [
        ToolsModule.forRoot(options.tools ?? {}),
        ExecutionModule.forRoot({
          runStore: options.store,
          auditStore: options.auditStore,
          agents,
          tools: { provide: TOOL_CATALOG, useExisting: ToolRegistry },
          clock: options.clock,
          policy: options.policy,
          workers: options.workers,
          reaper: options.reaper,
          auditGapSaga: options.auditGapSaga,
        }),
      ],
      exports: [ExecutionModule],
    };
  }
}
