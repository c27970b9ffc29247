import type { Provider, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { ProjectionSource } from '@agent-ledger/projections';
import type { AgentDefinition } from '@agent-ledger/runtime';
import type { HttpApiOptions } from './http-api-options';
import { HealthController } from './health/health.controller';
import { ReadinessController } from './health/readiness.controller';
import { ReadinessService } from './health/readiness.service';
import { AGENT_DEFINITIONS } from './agents/agent-definitions.token';
import { AgentsController } from './agents/agents.controller';
import { ApprovalsController } from './approvals/approvals.controller';
import { AuditChainsController } from './audit/audit-chains.controller';
import { AuditReviewController } from './audit/audit-review.controller';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyVerifier } from './auth/api-key-verifier';
import { ConsoleController } from './console/console.controller';
import { ConsoleFiles } from './console/console-files';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { EventStreamService } from './events/event-stream.service';
import { EventsController } from './events/events.controller';
import { McpController } from './mcp/mcp.controller';
import { MeController } from './me/me.controller';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsService } from './metrics/metrics.service';
import { OpenApiController } from './openapi/openapi.controller';
import { OpenApiDocumentHolder } from './openapi/openapi-document';
import { ProjectionLagService } from './projections/projection-lag.service';
import { ProjectionRebuildController } from './projections/projection-rebuild.controller';
import { ProjectionRebuildService } from './projections/projection-rebuild.service';
import { PROJECTION_SOURCES } from './projections/projection-sources.token';
import { ReadModelsController } from './projections/read-models.controller';
import { RunsController } from './runs/runs.controller';
import { HTTP_API_OPTIONS } from './http-api-options';
import { createApiValidationPipe } from './validation/validation-pipe';

/** The HTTP API's controllers. */
export const HTTP_API_CONTROLLERS: readonly Type[] = [
  HealthController,
  ReadinessController,
  RunsController,
  ApprovalsController,
  EventsController,
  ReadModelsController,
  ProjectionRebuildController,
  AuditReviewController,
  AuditChainsController,
  AgentsController,
  MeController,
  McpController,
  MetricsController,
  OpenApiController,
  ConsoleController,
];

/**
 * The HTTP API's providers: its services, the one `ValidationPipe`, the one
 * exception filter and the API key guard (all three application-wide: they
 * cover every controller of the application, those of other modules too).
 * They need the `CommandBus` and `QueryBus` with the runtime's handlers, `RuntimeMetrics`,
 * the run and audit stores and the tool catalog (from `AgentLedgerModule`) and `ProjectionQueries`,
 * `ProjectionRebuilder`, `ProjectionStore` and the `AuditStoreReviewer` (from `AgentLedgerModule`'s read models) in
 * the same module; `agents` are the definitions the runtime was given.
 */
export function httpApiProviders(config: HttpApiOptions, sources: readonly ProjectionSource[], agents: readonly AgentDefinition[]): Provider[] {
  return [
    { provide: HTTP_API_OPTIONS, useValue: config },
    { provide: PROJECTION_SOURCES, useValue: sources },
    { provide: AGENT_DEFINITIONS, useValue: agents },
    { provide: APP_PIPE, useFactory: createApiValidationPipe },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    ApiKeyVerifier,
    MetricsService,
    OpenApiDocumentHolder,
    EventStreamService,
    ProjectionLagService,
    ProjectionRebuildService,
    ReadinessService,
    ConsoleFiles,
  ];
}
