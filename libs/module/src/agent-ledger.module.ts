import { dirname, join } from 'node:path';
import type { DynamicModule, FactoryProvider, InjectionToken, ModuleMetadata } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { ConfigurationError } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { AuditVerdictSource, ProcessorRunnerHost, ProjectionSource, ProjectionsModuleOptions } from '@agent-ledger/projections';
import {
  AUDIT_VERDICT_SOURCE,
  openReadModelStore,
  PROCESSOR_RUNNER_HOST,
  ProjectionQueries,
  ProjectionRebuilder,
  ProjectionsModule,
  ProjectionStore,
  PROJECTIONS_MODULE_OPTIONS,
  validateProjectionsModuleOptions,
} from '@agent-ledger/projections';
import type { AgentLedgerRuntimeOptions, DeferredProvider } from '@agent-ledger/runtime';
import {
  AUDIT_EVENT_STORE,
  AUDIT_VERDICT_CHECKPOINT_FILE,
  AgentLedgerRuntimeModule,
  AuditStoreReviewer,
  checkRuntimeOptions,
  deferProviders,
  EventProcessors,
  RUN_EVENT_STORE,
  reviewRunAudit,
} from '@agent-ledger/runtime';

/** The read models a runtime keeps: `ProjectionsModule`'s options but its sources, which are the runtime's stores. */
export type ReadModelsOptions = Omit<ProjectionsModuleOptions, 'sources'>;

/** Everything the runtime is built from, and whether it keeps read models. */
export interface AgentLedgerModuleOptions extends AgentLedgerRuntimeOptions {
  /**
   * The read models (`ProjectionsModule`, fed by `store`, and by `auditStore`
   * when it is another store), so that the read-model queries (`GetRun`,
   * `ListRuns`, `GetRunSteps`, `ListApprovals`, `GetAuditReview`, `GetProjectionStatus`)
   * answer on the QueryBus; `GetAuditReview` with the audit verdict read
   * from the stores (`AuditStoreReviewer`, exported too, whose checkpoint is
   * kept in `audit-verdict.sqlite` beside `databasePath`). `false` for none: a host that imports
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

/** Holds the options resolved by `forRootAsync`, for the runtime's and the read models' modules. */
@Module({})
class AgentLedgerOptionsModule {}

/**
 * The whole of agent-ledger in a Nest application: the runtime
 * (`AgentLedgerRuntimeModule`: tools with their declared effects, agents and
 * their model providers, workers, reaper, audit-gap saga, the public
 * commands and queries on the application's buses) and, when asked, the
 * read models (`ProjectionsModule`), fed by the runtime's own stores: their
 * projections are processors of the runtime's runners (`EventProcessors`),
 * so each store's `$all` is read once per process.
 *
 * @example
 * AgentLedgerModule.forRoot({
 *   store: createEventStore({ sqlite: { path: './data/my-app/events.sqlite' } }),
 *   agents: loadAgentsConfig('config/agents.yaml').agents,
 *   tools: { builtins: { files: { workspaceDir: './data/my-app/workspace' } } },
 *   readModels: { databasePath: './data/my-app/read-models.sqlite' },
 *   auditGapSaga: { databasePath: './data/my-app/audit-gap-saga.sqlite' },
 * })
 */
@Module({})
export class AgentLedgerModule {
  /** The runtime (and its read models) over options known now. */
  static forRoot(options: AgentLedgerModuleOptions): DynamicModule {
    const { readModels = false, ...runtime } = options;
    if (readModels !== false) checkReadModels(readModels, 'AgentLedgerModule.forRoot: readModels');
    const runtimeModule = AgentLedgerRuntimeModule.forRoot(runtime);
    const imports: NonNullable<ModuleMetadata['imports']> = [runtimeModule];
    if (readModels !== false) imports.push(onRuntimeRunners(ProjectionsModule.forRoot(projectionsOptionsOf(options, readModels)), runtimeModule));
    return {
      module: AgentLedgerModule,
      imports,
      exports: readModels === false ? [AgentLedgerRuntimeModule] : [AgentLedgerRuntimeModule, ProjectionsModule],
    };
  }

  /**
   * The runtime (and its read models) over options built when the
   * application starts, e.g. from the host's configuration service. The
   * options are those of {@link forRoot}; `@Tool` providers of the host's
   * modules are found as with `forRoot`.
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
    const runtimeModule = AgentLedgerRuntimeModule.fromOptionsProvider(optionsModule, AGENT_LEDGER_OPTIONS);
    const imports: NonNullable<ModuleMetadata['imports']> = [runtimeModule];
    if (withReadModels) {
      imports.push(
        onRuntimeRunners(
          deferProviders<AgentLedgerModuleOptions>(
            ProjectionsModule.forRoot({ databasePath: '(resolved with the options)', sources: [{ name: 'runs', store: PLACEHOLDER_STORE }] }),
            AGENT_LEDGER_OPTIONS,
            optionsModule,
            DEFERRED_READ_MODEL_PROVIDERS,
          ),
          runtimeModule,
        ),
      );
    }
    return {
      module: AgentLedgerModule,
      imports,
      exports: withReadModels ? [AgentLedgerRuntimeModule, ProjectionsModule] : [AgentLedgerRuntimeModule],
    };
  }
}

/**
 * The read models' sources of a runtime's stores, as every part of
 * agent-ledger names them: `runs`, and `audit` when the audit streams live in
 * another store (none given, or the same store: `runs` only).
 */
export function readModelSources(store: EventStore, auditStore?: EventStore): ProjectionSource[] {
  const sources: ProjectionSource[] = [{ name: 'runs', store }];
  if (auditStore !== undefined && auditStore !== store) sources.push({ name: 'audit', store: auditStore });
  return sources;
}

/**
 * The read models' module with the runtime's runners as its
 * `PROCESSOR_RUNNER_HOST`: its projections are added to the runtime's
 * runner of each store (one transaction of each file per batch) instead of
 * runners of their own. It also holds the runtime's audit verdict
 * (`AuditStoreReviewer`, exported), which `GetAuditReview` answers with
 * (`AUDIT_VERDICT_SOURCE`): the composition of the two is here, where both
 * are known.
 */
function onRuntimeRunners(projections: DynamicModule, runtimeModule: DynamicModule): DynamicModule {
  return {
    ...projections,
    imports: [...(projections.imports ?? []), runtimeModule],
    providers: [
      ...(projections.providers ?? []),
      { provide: PROCESSOR_RUNNER_HOST, inject: [EventProcessors], useFactory: runnerHostOf },
      { provide: AuditStoreReviewer, inject: [PROJECTIONS_MODULE_OPTIONS, RUN_EVENT_STORE, AUDIT_EVENT_STORE], useFactory: auditStoreReviewerOf },
      { provide: AUDIT_VERDICT_SOURCE, inject: [AuditStoreReviewer, RUN_EVENT_STORE, AUDIT_EVENT_STORE], useFactory: auditVerdictSourceOf },
    ],
    exports: [...(projections.exports ?? []), AuditStoreReviewer],
  };
}

/**
 * The application's one {@link AuditStoreReviewer}, its checkpoint kept in
 * `audit-verdict.sqlite` in the read models' folder (in memory only when the
 * read models are in memory).
 */
function auditStoreReviewerOf(projections: ProjectionsModuleOptions, runStore: EventStore, auditStore: EventStore): AuditStoreReviewer {
  const { databasePath } = projections;
  const checkpointPath = databasePath === ':memory:' ? undefined : join(dirname(databasePath), AUDIT_VERDICT_CHECKPOINT_FILE);
  return new AuditStoreReviewer({ runStore, auditStore }, checkpointPath === undefined ? {} : { checkpointPath });
}

/** `GetAuditReview`'s verdict: every run from the reviewer's checkpoint (or a full pass), one run from its two streams read whole, as `GET /audit/review`. */
function auditVerdictSourceOf(reviewer: AuditStoreReviewer, runStore: EventStore, auditStore: EventStore): AuditVerdictSource {
  return {
    verdict: ({ runId, limit, full }) => {
      const options = limit === undefined ? {} : { limit };
      return runId === undefined ? reviewer.review({ ...options, full: full === true }) : reviewRunAudit({ runStore, auditStore }, runId, options);
    },
  };
}

/** The runtime's processors as the read models' runner host: the read-model sources `runs` and `audit` are its roles. */
function runnerHostOf(processors: EventProcessors): ProcessorRunnerHost {
  return {
    runnerOf: (source) => {
      if (source !== 'runs' && source !== 'audit') throw new ConfigurationError(`The read models' source "${source}" is not one of the runtime's stores (runs, audit)`);
      return processors.runnerOf(source);
    },
    start: () => processors.start(),
  };
}

function projectionsOptionsOf(options: AgentLedgerRuntimeOptions, readModels: ReadModelsOptions): ProjectionsModuleOptions {
  return { ...readModels, sources: readModelSources(options.store, options.auditStore) };
}

/**
 * Checks what `useFactory` gave, field by field, before anything uses it.
 * @throws ConfigurationError naming the field
 */
function checkAsyncOptions(options: AgentLedgerModuleOptions, withReadModels: boolean): AgentLedgerModuleOptions {
  const prefix = 'AgentLedgerModule.forRootAsync: useFactory()';
  checkRuntimeOptions(options, prefix);
  const readModels = options.readModels ?? false;
  if (withReadModels && readModels === false) {
    throw new ConfigurationError(`${prefix}.readModels must give the read models' settings ({ databasePath } at least): forRootAsync was given readModels: true`);
  }
  if (readModels !== false) checkReadModels(readModels, `${prefix}.readModels`);
  if (!withReadModels && readModels !== false) {
    throw new ConfigurationError(`${prefix}.readModels is set, but forRootAsync was not given readModels: true (it decides which modules exist)`);
  }
  return options;
}

/**
 * The read models' settings, checked: their file is required.
 * @throws ConfigurationError naming `<field>.databasePath`
 */
function checkReadModels(readModels: ReadModelsOptions | undefined, field: string): ReadModelsOptions {
  if (typeof readModels !== 'object' || readModels === null || typeof readModels.databasePath !== 'string' || readModels.databasePath.trim() === '') {
    throw new ConfigurationError(
      `${field}.databasePath is required: name the read models' file, e.g. join(dataDir, 'read-models.sqlite') (there is no default, so that a host's read models never land in the agent-ledger service's ./data/read-models.sqlite)`,
    );
  }
  return readModels;
}

/** Stands for the stores until the options are resolved; never used (every provider built from it is deferred). */
const PLACEHOLDER_STORE = Object.freeze({
  subscribeToAll: () => {
    throw new ConfigurationError('AgentLedgerModule.forRootAsync: a placeholder store was used before the options were resolved');
  },
}) as unknown as EventStore;

type Deferred = DeferredProvider<AgentLedgerModuleOptions>;

/** The providers of `ProjectionsModule.forRoot` built from its options, built from the resolved options instead. */
const DEFERRED_READ_MODEL_PROVIDERS: ReadonlyMap<InjectionToken, Deferred> = new Map<InjectionToken, Deferred>([
  [
    PROJECTIONS_MODULE_OPTIONS,
    {
      useFactory: (o) => {
        const projections = projectionsOptionsOf(o, checkReadModels(o.readModels || undefined, 'AgentLedgerModule.forRootAsync: useFactory().readModels'));
        validateProjectionsModuleOptions(projections);
        return projections;
      },
    },
  ],
  [ProjectionStore, { inject: [PROJECTIONS_MODULE_OPTIONS], useFactory: (_o, p: ProjectionsModuleOptions) => openReadModelStore(p) }],
  [ProjectionQueries, { inject: [PROJECTIONS_MODULE_OPTIONS, ProjectionStore], useFactory: (_o, p: ProjectionsModuleOptions, s: ProjectionStore) => new ProjectionQueries(s, p.sources) }],
  [ProjectionRebuilder, { inject: [PROJECTIONS_MODULE_OPTIONS, ProjectionStore], useFactory: (_o, p: ProjectionsModuleOptions, s: ProjectionStore) => new ProjectionRebuilder(s, p.sources) }],
]);
