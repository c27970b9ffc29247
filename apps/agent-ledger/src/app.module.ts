import { extname, join } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import type { RunPolicyOptions } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { AgentDefinition, LoadedPlugins, ToolsModuleOptions, WorkerOptions, WorkerProcessesOptions } from '@agent-ledger/runtime';
import type { WorkerProcessSupervisor } from '@agent-ledger/runtime';
import { NO_PLUGINS } from '@agent-ledger/runtime';
import { McpToolsModule } from '@agent-ledger/mcp';
import type { McpServers } from '@agent-ledger/mcp';
import { testLedgerImports } from './config/crash-test/test-ledger.tools';
import { auditGapSagaPath, processorsPath, readModelsPath, sagaMismatchPolicyOf } from './config/read-models';
import type { ServiceConfig } from './config/service-config';
import { AgentLedgerHttpModule } from '@agent-ledger/http';

/** The run policy options the configuration sets (lease length, backoff); the rest keeps the policy's defaults. */
export function runPolicyOf(config: Pick<ServiceConfig, 'leaseSeconds' | 'backoffBaseSeconds' | 'backoffCapSeconds'>): RunPolicyOptions | undefined {
  const options: { leaseSeconds?: number; backoffBaseSeconds?: number; backoffCapSeconds?: number } = {};
  if (config.leaseSeconds !== undefined) options.leaseSeconds = config.leaseSeconds;
  if (config.backoffBaseSeconds !== undefined) options.backoffBaseSeconds = config.backoffBaseSeconds;
  if (config.backoffCapSeconds !== undefined) options.backoffCapSeconds = config.backoffCapSeconds;
  return Object.keys(options).length === 0 ? undefined : options;
}

/**
 * The workers' options of a process of the service: how many in this process,
 * the worker processes it supervises, and the consumer group on EventStoreDB.
 *
 * With `WORKER_PROCESSES` above 0 (and workers to run), this process starts
 * that many `agent-ledger worker --no-saga` processes on the same
 * configuration, each with `concurrency` workers, no reaper and no worker
 * process of its own; `serve` then runs no worker itself (its core is left to
 * the HTTP API, the read models, the saga and the reaper: the layout measured
 * fastest, docs/benchmarks.md), a `worker` runs its own besides.
 */
export function workerOptionsOf(
  config: Pick<ServiceConfig, 'consumerGroup' | 'workerProcesses' | 'configFile'>,
  concurrency: number,
  role: 'serve' | 'worker',
): WorkerOptions {
  const group = config.consumerGroup === null ? {} : { consumerGroup: config.consumerGroup };
  if (config.workerProcesses === 0 || concurrency === 0) return { concurrency, ...group };
  const env: NodeJS.ProcessEnv = { ...process.env, WORKER_PROCESSES: '0', WORKER_CONCURRENCY: String(concurrency), REAPER_INTERVAL_MS: '0' };
  if (config.configFile !== null) env.AGENT_LEDGER_CONFIG = config.configFile;
  const processes: WorkerProcessesOptions = { count: config.workerProcesses, entry: cliEntry(), args: ['worker', '--no-saga'], env };
  return { concurrency: role === 'serve' ? 0 : concurrency, processes, ...group };
}

/** How the start-up lines name a process's worker processes: `1 worker process of 4 workers each (pids 4242)`, `note` after the pids. */
export function workerProcessesPhrase(supervisor: WorkerProcessSupervisor, concurrency: number, note?: string): string {
  const pids = supervisor.states().map((state) => state.pid ?? '-').join(', ');
  return `${supervisor.count} worker process${supervisor.count === 1 ? '' : 'es'} of ${concurrency} worker${concurrency === 1 ? '' : 's'} each (pids ${pids}${note === undefined ? '' : `; ${note}`})`;
}

/** The CLI beside this module: `cli/main.js` in the build, `cli/main.ts` from the sources (ts-node). */
function cliEntry(): string {
  return join(__dirname, 'cli', `main${extname(__filename)}`);
}

/**
 * The service's tools: the built-in ones (`files.*` in the workspace folder,
 * `clock.now`, `user.ask`) and the plugins', through the same `ToolsModule`
 * (one registry, one fence, audit, approval and idempotency key for all; the
 * MCP servers' tools join the same registry through {@link mcpImports}).
 */
export function serviceToolsOf(config: Pick<ServiceConfig, 'workspaceDir'>, plugins: LoadedPlugins): ToolsModuleOptions {
  return { builtins: { files: { workspaceDir: config.workspaceDir }, clock: true }, tools: [...plugins.tools] as unknown as NonNullable<ToolsModuleOptions['tools']> };
}

/** What the service is built from: its settings, its open stores, its agents and its plugins. */
export interface AppDependencies {
  readonly config: ServiceConfig;
  readonly store: EventStore;
  readonly auditStore?: EventStore;
  /** Every agent: the agents file's and the plugins' (see `loadServiceDefinitions`). */
  readonly agents: readonly AgentDefinition[];
  /** The plugins' tools and model providers. @default none */
  readonly plugins?: LoadedPlugins;
  /** The bound MCP servers, started and checked, whose tools are registered beside the others. @default none */
  readonly mcp?: McpServers | null;
}

/** The module registering the MCP servers' tools, or none without MCP servers. */
export function mcpImports(mcp: McpServers | null | undefined): DynamicModule[] {
  return mcp === null || mcp === undefined ? [] : [McpToolsModule.forRoot(mcp)];
}

/**
 * The service's root module: `AgentLedgerHttpModule` (the runtime with its
 * workers, reaper and audit-gap saga, the read models in
 * `<dataDir>/read-models.sqlite`, fed by the run store and by the audit store
 * when it is separate, and the HTTP API with the console).
 */
@Module({})
export class AppModule {
  static forRoot({ config, store, auditStore, agents, plugins = NO_PLUGINS, mcp }: AppDependencies): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AgentLedgerHttpModule.forRoot({
          ledger: {
            store,
            auditStore,
            agents,
            tools: serviceToolsOf(config, plugins),
            models: { providers: plugins.modelProviders },
            policy: runPolicyOf(config),
            workers: workerOptionsOf(config, config.workerConcurrency, 'serve'),
            reaper: { intervalMs: config.reaperIntervalMs },
            auditGapSaga: { databasePath: auditGapSagaPath(config), gracePeriodMs: config.auditGapGraceMs, onStoreMismatch: sagaMismatchPolicyOf(config) },
            processors: { databasePath: processorsPath(config), onStoreMismatch: sagaMismatchPolicyOf(config) },
            readModels: { databasePath: readModelsPath(config), onStoreMismatch: config.readModelsOnStoreMismatch },
          },
          http: config,
        }),
        ...testLedgerImports(config.testLedgerPath),
        ...mcpImports(mcp),
      ],
    };
  }
}
