import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import type { AgentDefinition, LoadedPlugins } from '@agent-ledger/runtime';
import { NO_PLUGINS } from '@agent-ledger/runtime';
import { AgentLedgerModule } from '@agent-ledger/module';
import { mcpImports, runPolicyOf, serviceToolsOf, workerOptionsOf } from '../app.module';
import type { McpServers } from '@agent-ledger/mcp';
import type { ServiceConfig } from '../config/service-config';
import { testLedgerImports } from '../config/crash-test/test-ledger.tools';
import type { OpenStores } from '../config/open-stores';
import { auditGapSagaPath, processorsPath, sagaMismatchPolicyOf } from '../config/read-models';

/** What a worker process is built from. */
export interface WorkerDependencies {
  readonly config: ServiceConfig;
  readonly stores: OpenStores;
  readonly agents: readonly AgentDefinition[];
  /** The plugins' tools and model providers (workers run the tools). @default none */
  readonly plugins?: LoadedPlugins;
  /** Segments executed at once (`--concurrency`, else `WORKER_CONCURRENCY`). */
  readonly concurrency: number;
  /** Run the audit-gap saga in this process too (its decisions are idempotent across processes). */
  readonly saga: boolean;
  /** The bound MCP servers, started and checked by this process (workers run their tools). @default none */
  readonly mcp?: McpServers | null;
}

/**
 * The runtime alone, for `agent-ledger worker`: the same `AgentLedgerModule`
 * as the service's (`AppModule`), with the same tools (the plugins' too), policy, reaper and
 * saga settings, and no HTTP API and no read models.
 */
@Module({})
export class WorkerModule {
  static forRoot({ config, stores, agents, plugins = NO_PLUGINS, concurrency, saga, mcp }: WorkerDependencies): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        AgentLedgerModule.forRoot({
          store: stores.runStore,
          auditStore: stores.auditStore === stores.runStore ? undefined : stores.auditStore,
          agents,
          tools: serviceToolsOf(config, plugins),
          models: { providers: plugins.modelProviders },
          policy: runPolicyOf(config),
          workers: workerOptionsOf(config, concurrency, 'worker'),
          reaper: { intervalMs: config.reaperIntervalMs },
          auditGapSaga: saga
            ? { databasePath: auditGapSagaPath(config), gracePeriodMs: config.auditGapGraceMs, onStoreMismatch: sagaMismatchPolicyOf(config) }
            : { enabled: false },
          processors: { databasePath: processorsPath(config), onStoreMismatch: sagaMismatchPolicyOf(config) },
        }),
        ...testLedgerImports(config.testLedgerPath),
        ...mcpImports(mcp),
      ],
    };
  }
}
