import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { READ_MODEL_QUERY_HANDLERS } from '../bus/read-model-query-handlers';
import { ProjectionQueries } from '../queries/projection-queries';
import { ProjectionRebuilder } from '../rebuild/projection-rebuilder';
import { ProjectionStore } from '../store/projection-store';
import { openReadModelStore } from './open-read-model-store';
import { ProjectionRunnerPool } from './projection-runner-pool';
import type { ProjectionsModuleOptions } from './projections-module-options';
import { PROJECTIONS_MODULE_OPTIONS, validateProjectionsModuleOptions } from './projections-module-options';

/**
 * The read models: a {@link ProjectionStore} on its own SQLite file, one
 * runner per event-store source (started at bootstrap by default), the
 * {@link ProjectionQueries} read service and the {@link ProjectionRebuilder}.
 * Its queries also answer on the QueryBus (`GetRun`, `ListRuns`,
 * `GetRunSteps`, `GetAuditReview`, `ListApprovals`, `GetProjectionStatus`) of the
 * application's `CqrsModule.forRoot()` (the runtime's modules import it). It
 * sends no command: projecting and rebuilding only write read-model tables.
 */
@Module({})
export class ProjectionsModule {
  /**
   * The read-model database is opened as the module is built, and checked
   * against the sources' stores (`onStoreMismatch`): the application does
   * not start on read models made from other stores, unless told to rebuild them.
   *
   * @throws InvalidProjectionOptionError for bad options (before anything is opened)
   */
  static forRoot(options: ProjectionsModuleOptions): DynamicModule {
    validateProjectionsModuleOptions(options);
    return {
      module: ProjectionsModule,
      providers: [
        ...READ_MODEL_QUERY_HANDLERS,
        { provide: PROJECTIONS_MODULE_OPTIONS, useValue: options },
        { provide: ProjectionStore, useFactory: () => openReadModelStore(options) },
        { provide: ProjectionQueries, useFactory: (store: ProjectionStore) => new ProjectionQueries(store, options.sources), inject: [ProjectionStore] },
        { provide: ProjectionRebuilder, useFactory: (store: ProjectionStore) => new ProjectionRebuilder(store, options.sources), inject: [ProjectionStore] },
        ProjectionRunnerPool,
      ],
      exports: [ProjectionQueries, ProjectionRebuilder, ProjectionRunnerPool, ProjectionStore],
    };
  }
}
