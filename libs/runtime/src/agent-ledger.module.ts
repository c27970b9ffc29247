import type { DynamicModule, FactoryProvider, InjectionToken, ModuleMetadata } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConfigurationError, createRunDecider } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { ProjectionSource, ProjectionsModuleOptions } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRebuilder, ProjectionsModule, ProjectionStore, PROJECTIONS_MODULE_OPTIONS, validateProjectionsModuleOptions } from '@agent-ledger/projections';
import type { AgentDefinition } from './agents/agent-definition';
import { BUS_PROVIDERS } from './bus/bus-handlers';
import type { Clock } from './clock/clock';
import { CLOCK, systemClock } from './clock/clock';
import type { AgentCatalog } from './execution/agent-catalog';
import { AGENT_CATALOG, agentCatalogOf } from './execution/agent-catalog';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from './execution/event-store.tokens';
import { ExecutionModule } from './execution/execution.module';
import { RUN_DECIDER } from './execution/run-decider.token';
import type { ExecutionOptions } from './execution/runtime-options';
import { EXECUTION_OPTIONS } from './execution/runtime-options';
import { TOOL_CATALOG } from './execution/tool-catalog';
import type { ModelProviderFactoryOptions } from './models/model-provider-factory';
import { createModelProvider } from './models/model-provider-factory';
import { registerConfiguredTools } from './module/async-tools';
import type { DeferredProvider } from './module/deferred-providers';
import { deferProviders } from './module/deferred-providers';
import { AUDIT_GAP_SAGA_OPTIONS } from './saga/audit-gap-saga.options';
import { ToolRegistry } from './tools/tool-registry';
import type { ToolsModuleOptions } from './tools/tools-module-options';
import { ToolsModule } from './tools/tools.module';

/** The read models a runtime keeps: `ProjectionsModule`'s options but its sources, which are the runtime's stores. */
export type ReadModelsOptions = Omit<ProjectionsModuleOptions, 'sources'>;

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
  /**
   * The read models (`ProjectionsModule`, fed by `store`, and by `auditStore`
   * when it is another store), so that the read-model queries (`GetRun`,
   * `ListRuns`, `GetRunSteps`, `GetAuditReview`, `GetProjectionStatus`)
   * answer on the QueryBus. `false` for none: a host that imports
   * `ProjectionsModule` itself must not ask for them here too.
   * @default false
   */
  readonly readModels?: ReadModelsOptions | false;
}

/** How {@link AgentLedgerModule.forRootAsync} gets its options. */
export interface AgentLedgerModuleAsyncOptions {
  /** Modules whose providers `useFactory` injects (e.g. the host's configuration module). @default [] */
  readonly imports?: ModuleMetadata['imports'];
  /** The providers passed to `useFactory`, in order. @default [] */
  readonly inject?: FactoryProvider['inject'];
  /** Builds the options, once, when the application starts. */
  readonly useFactory: (...args: never[]) => AgentLedgerModuleOptions | Promise<AgentLedgerModuleOptions>;
  /**
   * Whether the runtime keeps read models. It decides which modules exist, so
   * it is known before the options are: when true, the options must give
   * `readModels` settings (`{}` for the defaults); when false, they must not.
   * @default false
   */
  readonly readModels?: boolean;
}

/** Injection token of the options resolved by {@link AgentLedgerModule.forRootAsync}. */
const AGENT_LEDGER_OPTIONS: InjectionToken = Symbol('agent-ledger:AgentLedgerModuleOptions');
/** Injection token of the tools that `forRootAsync` registers from the options. */
const CONFIGURED_TOOLS: InjectionToken = Symbol('agent-ledger:ConfiguredTools');

/** Holds the options resolved by `forRootAsync`, for the runtime's modules. */
@Module({})
class AgentLedgerOptionsModule {}

/**
 * The whole runtime in one module: tools (with their declared effects),
 * agents and their model providers, the execution engine (command handlers,
 * workers, reaper, `RunService`), the public commands and queries on the
 * application's buses (`StartRun`, `CancelRun`, `GetRunState`), validated
 * before their handlers run, and optionally the read models.
 *
 * @example
 * AgentLedgerModule.forRoot({
 *   store: createEventStore(),
 *   agents: loadAgentsConfig('config/agents.yaml').agents,
 *   tools: { builtins: { files: { workspaceDir: './data/workspace' } } },
 *   readModels: { databasePath: './data/read-models.sqlite' },
 * })
 */
@Module({})
export class AgentLedgerModule {
  /** The runtime over options known now. */
  static forRoot(options: AgentLedgerModuleOptions): DynamicModule {
    const readModels = options.readModels ?? false;
    const imports: NonNullable<ModuleMetadata['imports']> = [
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
      }),
    ];
    if (readModels !== false) imports.push(ProjectionsModule.forRoot(projectionsOptionsOf(options, readModels)));
    return {
      module: AgentLedgerModule,
      imports,
      providers: [...BUS_PROVIDERS],
      exports: readModels === false ? [ExecutionModule] : [ExecutionModule, ProjectionsModule],
    };
  }

  /**
   * The runtime over options built when the application starts, e.g. from
   * the host's configuration service. The options are those of
   * {@link forRoot}; `@Tool` providers of the host's modules are found as
   * with `forRoot`.
   *
   * @example
   * AgentLedgerModule.forRootAsync({
   *   imports: [HostConfigModule],
   *   inject: [HostConfig],
   *   useFactory: (config: HostConfig) => ({ store: config.openStore(), agents: config.agents() }),
   * })
   */
  static forRootAsync(options: AgentLedgerModuleAsyncOptions): DynamicModule {
    const withReadModels = options.readModels ?? false;
    const optionsModule: DynamicModule = {
      module: AgentLedgerOptionsModule,
      imports: [...(options.imports ?? [])],
      providers: [
        {
          provide: AGENT_LEDGER_OPTIONS,
          inject: [...(options.inject ?? [])],
          useFactory: async (...args: never[]) => checkAsyncOptions(await options.useFactory(...args), withReadModels),
        },
      ],
      exports: [AGENT_LEDGER_OPTIONS],
    };
    const execution = deferProviders<AgentLedgerModuleOptions>(
      ExecutionModule.forRoot({ runStore: PLACEHOLDER_STORE, agents: agentCatalogOf([]), tools: { provide: TOOL_CATALOG, useExisting: ToolRegistry } }),
      AGENT_LEDGER_OPTIONS,
      optionsModule,
      DEFERRED_EXECUTION_PROVIDERS,
    );
    const imports: NonNullable<ModuleMetadata['imports']> = [optionsModule, ToolsModule.forRoot({ builtins: { clock: false, user: false } }), execution];
    if (withReadModels) {
      imports.push(
        deferProviders<AgentLedgerModuleOptions>(
          ProjectionsModule.forRoot({ sources: [{ name: 'runs', store: PLACEHOLDER_STORE }] }),
          AGENT_LEDGER_OPTIONS,
          optionsModule,
          DEFERRED_READ_MODEL_PROVIDERS,
        ),
      );
    }
    return {
      module: AgentLedgerModule,
      imports,
      providers: [
        ...BUS_PROVIDERS,
        {
          provide: CONFIGURED_TOOLS,
          inject: [AGENT_LEDGER_OPTIONS, ToolRegistry, ModuleRef],
          useFactory: (resolved: AgentLedgerModuleOptions, registry: ToolRegistry, moduleRef: ModuleRef) =>
            registerConfiguredTools(resolved.tools, resolved.clock, registry, moduleRef),
        },
      ],
      exports: withReadModels ? [ExecutionModule, ProjectionsModule] : [ExecutionModule],
    };
  }
}

function agentCatalogFrom(options: AgentLedgerModuleOptions): AgentCatalog {
  return agentCatalogOf(options.agents.map((definition) => ({ definition, provider: createModelProvider(definition.provider, options.models) })));
}

function projectionSourcesOf(options: AgentLedgerModuleOptions): ProjectionSource[] {
  const sources: ProjectionSource[] = [{ name: 'runs', store: options.store }];
  if (options.auditStore !== undefined && options.auditStore !== options.store) sources.push({ name: 'audit', store: options.auditStore });
  return sources;
}

function projectionsOptionsOf(options: AgentLedgerModuleOptions, readModels: ReadModelsOptions): ProjectionsModuleOptions {
  return { ...readModels, sources: projectionSourcesOf(options) };
}

/**
 * Checks what `useFactory` gave, field by field, before anything uses it.
 * @throws ConfigurationError naming the field
 */
function checkAsyncOptions(options: AgentLedgerModuleOptions, withReadModels: boolean): AgentLedgerModuleOptions {
  const prefix = 'AgentLedgerModule.forRootAsync: useFactory()';
  if (typeof options !== 'object' || options === null) throw new ConfigurationError(`${prefix} must return the runtime's options`);
  if (typeof options.store?.subscribeToAll !== 'function') throw new ConfigurationError(`${prefix}.store must be an EventStore`);
  if (!Array.isArray(options.agents)) throw new ConfigurationError(`${prefix}.agents must be an array of agent definitions`);
  const readModels = options.readModels ?? false;
  if (withReadModels && readModels === false) {
    throw new ConfigurationError(`${prefix}.readModels must give the read models' settings ({} for the defaults): forRootAsync was given readModels: true`);
  }
  if (!withReadModels && readModels !== false) {
    throw new ConfigurationError(`${prefix}.readModels is set, but forRootAsync was not given readModels: true (it decides which modules exist)`);
  }
  return options;
}

/** Stands for the stores until the options are resolved; never used (every provider built from it is deferred). */
const PLACEHOLDER_STORE = Object.freeze({
  subscribeToAll: () => {
    throw new ConfigurationError('AgentLedgerModule.forRootAsync: a placeholder store was used before the options were resolved');
  },
}) as unknown as EventStore;

type Deferred = DeferredProvider<AgentLedgerModuleOptions>;

/** The providers of `ExecutionModule.forRoot` built from its options, built from the resolved options instead. */
const DEFERRED_EXECUTION_PROVIDERS: ReadonlyMap<InjectionToken, Deferred> = new Map<InjectionToken, Deferred>([
  [RUN_EVENT_STORE, { useFactory: (o) => o.store }],
  [AUDIT_EVENT_STORE, { useFactory: (o) => o.auditStore ?? o.store }],
  [CLOCK, { useFactory: (o) => o.clock ?? systemClock }],
  [EXECUTION_OPTIONS, { useFactory: (o): ExecutionOptions => ({ policy: o.policy, workers: o.workers, reaper: o.reaper, auditGapSaga: o.auditGapSaga }) }],
  [AUDIT_GAP_SAGA_OPTIONS, { useFactory: (o) => o.auditGapSaga ?? {} }],
  [RUN_DECIDER, { useFactory: (o) => createRunDecider(o.policy) }],
  [AGENT_CATALOG, { useFactory: (o) => agentCatalogFrom(o) }],
]);

/** The providers of `ProjectionsModule.forRoot` built from its options, built from the resolved options instead. */
const DEFERRED_READ_MODEL_PROVIDERS: ReadonlyMap<InjectionToken, Deferred> = new Map<InjectionToken, Deferred>([
  [
    PROJECTIONS_MODULE_OPTIONS,
    {
      useFactory: (o) => {
        const projections = projectionsOptionsOf(o, o.readModels || {});
        validateProjectionsModuleOptions(projections);
        return projections;
      },
    },
  ],
  [ProjectionStore, { inject: [PROJECTIONS_MODULE_OPTIONS], useFactory: (_o, p: ProjectionsModuleOptions) => ProjectionStore.open({ path: p.databasePath }) }],
  [ProjectionQueries, { inject: [PROJECTIONS_MODULE_OPTIONS, ProjectionStore], useFactory: (_o, p: ProjectionsModuleOptions, s: ProjectionStore) => new ProjectionQueries(s, p.sources) }],
  [ProjectionRebuilder, { inject: [PROJECTIONS_MODULE_OPTIONS, ProjectionStore], useFactory: (_o, p: ProjectionsModuleOptions, s: ProjectionStore) => new ProjectionRebuilder(s, p.sources) }],
]);
