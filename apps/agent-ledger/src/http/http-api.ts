import type { Provider, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import type { ProjectionSource } from '@agent-ledger/projections';
import type { ServiceConfig } from '../config/service-config';
import { HealthController } from '../health/health.controller';
import { ReadinessController } from '../health/readiness.controller';
import { ReadinessService } from '../health/readiness.service';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { EventStreamService } from './events/event-stream.service';
import { EventsController } from './events/events.controller';
import { ProjectionLagService } from './projections/projection-lag.service';
import { PROJECTION_SOURCES } from './projections/projection-sources.token';
import { ReadModelsController } from './projections/read-models.controller';
import { RunStarter } from './runs/run-starter';
import { RunsController } from './runs/runs.controller';
import { SERVICE_CONFIG } from './service-config.token';
import { createApiValidationPipe } from './validation/validation-pipe';

/** The HTTP API's controllers. */
export const HTTP_API_CONTROLLERS: readonly Type[] = [HealthController, ReadinessController, RunsController, EventsController, ReadModelsController];

/**
 * The HTTP API's providers: its services, the one `ValidationPipe` and the
 * one exception filter (application-wide). They need `RunService` and the
 * run store (from `AgentLedgerModule`) and `ProjectionQueries` (from
 * `ProjectionsModule`) in the same module.
 */
export function httpApiProviders(config: ServiceConfig, sources: readonly ProjectionSource[]): Provider[] {
  return [
    { provide: SERVICE_CONFIG, useValue: config },
    { provide: PROJECTION_SOURCES, useValue: sources },
    { provide: APP_PIPE, useFactory: createApiValidationPipe },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    RunStarter,
    EventStreamService,
    ProjectionLagService,
    ReadinessService,
  ];
}
