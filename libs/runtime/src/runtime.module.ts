import type { DynamicModule, FactoryProvider, InjectionToken, ModuleMetadata } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConfigurationError, createRunDecider } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { AgentDefinition } from './agents/agent-definition';
import type { Clock } from './clock/clock';
import { CLOCK, systemClock } from './clock/clock';
import type { AgentCatalog } from './segment/agent-catalog';
import { AGENT_CATALOG, agentCatalogOf } from './segment/agent-catalog';
import { PROCESSORS_OPTIONS } from './persistence/event-processors.options';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from './persistence/event-store.tokens';
import { ExecutionModule } from './execution/execution.module';
import { RUN_DECIDER } from './persistence/run-decider.token';
import type { ExecutionOptions } from './workers/runtime-options';
import { EXECUTION_OPTIONS, processorsOptionsOf } from './workers/runtime-options';
import { checkWorkerProcessesOptions } from './workers/worker-processes-options';
import { TOOL_CATALOG } from './segment/tool-catalog';
import type { ModelProviderFactoryOptions } from './models/model-provider-factory';
import { createModelProvider } from './models/model-provider-factory';
import { registerConfiguredTools } from './module/async-tools';
import type { DeferredProvider } from './module/deferred-providers';
import { deferProviders } from './module/deferred-providers';
import { AUDIT_GAP_SAGA_OPTIONS, checkAuditGapSagaOptions } from './saga/audit-gap-saga.options';
import { ToolRegistry } from './tools/tool-registry';
import type { ToolsModuleOptions } from './tools/tools-module-options';
import { ToolsModule } from './tools/tools.module';

/** Everything the runtime is built from. */
export interface AgentLedgerRuntimeOptions extends ExecutionOptions {
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

/** How {@link AgentLedgerRuntimeModule.forRootAsync} gets its options. */
export interface AgentLedgerRuntimeAsyncOptions {
  /** Modules whose providers `useFactory` injects (e.g. the host's configuration module). @default [] */
  readonly imports?: ModuleMetadata['imports'];
  /** The providers passed to `useFactory`, in order. @default [] */
  readonly inject?: FactoryProvider['inject'];
  /** Builds the options, once, when the application starts. */
  readonly useFactory: (...args: never[]) => AgentLedgerRuntimeOptions | Promise<AgentLedgerRuntimeOptions>;
}

/** Injection token of the options resolved by {@link AgentLedgerRuntimeModule.forRootAsync}. */
const RUNTIME_OPTIONS: InjectionToken = Symbol('agent-ledger:AgentLedgerRuntimeOptions');
/** Injection token of the tools that `forRootAsync` registers from the options. */
const CONFIGURED_TOOLS: InjectionToken = Symbol('agent-ledger:ConfiguredTools');

/** Holds the options resolved by `forRootAsync`, for the runtime's modules. */
@Module({})
class AgentLedgerRuntimeOptionsModule {}

/**
 * The runtime in one module: tools (with their declared effects), agents and
 * their model providers, the execution engine (workers, reaper, audit-gap
 * saga, `RunService`), and the public commands and queries
 * on the application's buses (`StartRun`, `CancelRun`, `GetRunState`, ...),
 * validated before their handlers run. It keeps no read models: a host that
 * wants them too imports `AgentLedgerModule` (`@agent-ledger/module`), which
 * composes this module with `ProjectionsModule`.
 *
 * @example
 * AgentLedgerRuntimeModule.forRoot({
 *   store: createEventStore({ sqlite: { path: './data/my-app/events.sqlite' } }),
 *   agents: loadAgentsConfig('config/agents.yaml').agents,
 *   tools: { builtins: { files: { workspaceDir: './data/my-app/workspace' } } },
 *   auditGapSaga: { databasePath: './data/my-app/audit-gap-saga.sqlite' },
 * })
 */
@Module({})
export class AgentLedgerRuntimeModule {
  /** The runtime over options known now. */
  static forRoot(options: AgentLedgerRuntimeOptions): DynamicModule {
    checkAuditGapSagaOptions(options.auditGapSaga);
    if (options.workers?.processes !== undefined) checkWorkerProcessesOptions(options.workers.processes, 'AgentLedgerRuntimeModule.forRoot: workers.processes');
    return {
      module: AgentLedgerRuntimeModule,
      imports: [
        ToolsModule.forRoot(options.tools ?? {}),
        ExecutionModule.forRoot({
          runStore: options.store,
          auditStore: options.auditStore,
          agents: agentCatalogFrom(options),
          tools: { provide: TOOL_CATALOG, useExisting: ToolRegistry },
          clock: options.clock,
          policy: options.policy,
          workers: options.workers,
          reaper: options.reaper,
          auditGapSaga: options.auditGapSaga,
          processors: options.processors,
        }),
      ],
      exports: [ExecutionModule],
    };
  }

  /**
   * The runtime over options built when the application starts, e.g. from
   * the host's configuration service. The options are those of
   * {@link forRoot}; `@Tool` providers of the host's modules are found as
   * with `forRoot`.
   *
   * @example
   * AgentLedgerRuntimeModule.forRootAsync({
   *   imports: [HostConfigModule],
   *   inject: [HostConfig],
   *   useFactory: (config: HostConfig) => ({ store: config.openStore(), agents: config.agents() }),
   * })
   */
  static forRootAsync(options: AgentLedgerRuntimeAsyncOptions): DynamicModule {
    const optionsModule: DynamicModule = {
      module: AgentLedgerRuntimeOptionsModule,
      imports: [...(options.imports ?? [])],
      providers: [
        {
          provide: RUNTIME_OPTIONS,
          inject: [...(options.inject ?? [])],
          useFactory: async (...args: never[]) => checkRuntimeOptions(await options.useFactory(...args), 'AgentLedgerRuntimeModule.forRootAsync: useFactory()'),
        },
      ],
      exports: [RUNTIME_OPTIONS],
    };
    return AgentLedgerRuntimeModule.fromOptionsProvider(optionsModule, RUNTIME_OPTIONS);
  }

  /**
   * The runtime over options that another module provides under
   * `optionsToken` once the application starts (already checked): how a
   * composition (`AgentLedgerModule.forRootAsync`) shares one resolution of
   * its options between the runtime and its own modules.
   */
  static fromOptionsProvider(optionsModule: NonNullable<ModuleMetadata['imports']>[number], optionsToken: InjectionToken): DynamicModule {
    const execution = deferProviders<AgentLedgerRuntimeOptions>(
      ExecutionModule.forRoot({ runStore: PLACEHOLDER_STORE, agents: agentCatalogOf([]), tools: { provide: TOOL_CATALOG, useExisting: ToolRegistry } }),
      optionsToken,
      optionsModule,
      DEFERRED_EXECUTION_PROVIDERS,
    );
    return {
      module: AgentLedgerRuntimeModule,
      imports: [optionsModule, ToolsModule.forRoot({ builtins: { clock: false, user: false } }), execution],
      providers: [
        {
          provide: CONFIGURED_TOOLS,
          inject: [optionsToken, ToolRegistry, ModuleRef],
          useFactory: (resolved: AgentLedgerRuntimeOptions, registry: ToolRegistry, moduleRef: ModuleRef) =>
            registerConfiguredTools(resolved.tools, resolved.clock, registry, moduleRef),
        },
      ],
      exports: [ExecutionModule],
    };
  }
}

function agentCatalogFrom(options: AgentLedgerRuntimeOptions): AgentCatalog {
  return agentCatalogOf(options.agents.map((definition) => ({ definition, provider: createModelProvider(definition.provider, options.models) })));
}

/**
 * Checks the runtime's options resolved at start-up, field by field, before anything uses them.
 * @param where who gave them, for the message (`AgentLedgerRuntimeModule.forRootAsync: useFactory()`)
 * @throws ConfigurationError naming the field
 */
export function checkRuntimeOptions<O extends AgentLedgerRuntimeOptions>(options: O, where: string): O {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError(`${where} must return the runtime's options`);
  if (typeof options.store?.subscribeToAll !== 'function') throw new ConfigurationError(`${where}.store must be an EventStore`);
  if (!Array.isArray(options.agents)) throw new ConfigurationError(`${where}.agents must be an array of agent definitions`);
  checkAuditGapSagaOptions(options.auditGapSaga, `${where}.auditGapSaga`);
  if (options.workers?.processes !== undefined) checkWorkerProcessesOptions(options.workers.processes, `${where}.workers.processes`);
  return options;
}

/** Stands for the stores until the options are resolved; never used (every provider built from it is deferred). */
const PLACEHOLDER_STORE = Object.freeze({
  subscribeToAll: () => {
    throw new ConfigurationError('AgentLedgerRuntimeModule.forRootAsync: a placeholder store was used before the options were resolved');
  },
}) as unknown as EventStore;

type Deferred = DeferredProvider<AgentLedgerRuntimeOptions>;

/** The providers of `ExecutionModule.forRoot` built from its options, built from the resolved options instead. */
const DEFERRED_EXECUTION_PROVIDERS: ReadonlyMap<InjectionToken, Deferred> = new Map<InjectionToken, Deferred>([
  [RUN_EVENT_STORE, { useFactory: (o) => o.store }],
  [AUDIT_EVENT_STORE, { useFactory: (o) => o.auditStore ?? o.store }],
  [CLOCK, { useFactory: (o) => o.clock ?? systemClock }],
  [EXECUTION_OPTIONS, { useFactory: (o): ExecutionOptions => ({ policy: o.policy, workers: o.workers, reaper: o.reaper, auditGapSaga: o.auditGapSaga, processors: o.processors }) }],
  [PROCESSORS_OPTIONS, { useFactory: (o) => processorsOptionsOf(o) }],
  [AUDIT_GAP_SAGA_OPTIONS, { useFactory: (o) => checkAuditGapSagaOptions(o.auditGapSaga) }],
  [RUN_DECIDER, { useFactory: (o) => createRunDecider(o.policy) }],
  [AGENT_CATALOG, { useFactory: (o) => agentCatalogFrom(o) }],
]);
