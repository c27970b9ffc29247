import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditReviewReport, ProjectionRunnerStats } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRunnerPool } from '@agent-ledger/projections';
import { AcrossRuns, RequireScope } from '../auth/auth.decorators';
import { ApiErrorBodyDoc } from '../openapi/api-error-body.doc';
import { AuditReviewReportDoc } from '../openapi/audit-review-report.doc';
import { ProjectionRunnerStatsDoc } from '../openapi/projection-runner-stats.doc';
import { ProjectionsAnswerDoc } from '../openapi/projections-answer.doc';
import { AuditReviewQueryDto } from '../runs/run-dtos';
import type { ProjectionStatusWithLag } from './projection-lag.service';
import { ProjectionLagService } from './projection-lag.service';

/** The most events the lag of `GET /projections` counts before it says "at least". */
export const PROJECTION_LAG_CAP = 10_000;

/** The body of `GET /projections`. */
export interface ProjectionsAnswer {
  /** Every projection in every source: checkpoint, head, lag. */
  readonly projections: readonly ProjectionStatusWithLag[];
  /** This process's runners, by source name. */
  readonly runners: Readonly<Record<string, ProjectionRunnerStats>>;
}

/** The audit review and the projections' status. */
@ApiTags('read models')
@Controller()
export class ReadModelsController {
  constructor(
    private readonly queries: ProjectionQueries,
    private readonly lag: ProjectionLagService,
    private readonly runners: ProjectionRunnerPool,
  ) {}

  /** The report of the audit-review read model: every write and its audit state, runs failed closed, gaps, interrupted writes. */
  @Get('audit/review')
  @RequireScope('audit:read')
  @AcrossRuns()
  @ApiOperation({ summary: 'The audit-review report (a key limited to some agents must name one of their runs with runId)' })
  @ApiOkResponse({ description: 'totals and lists of the audit review', type: AuditReviewReportDoc })
  @ApiBadRequestResponse({ description: 'a refused query (`INVALID_FIELD`)', type: ApiErrorBodyDoc })
  @ApiNotFoundResponse({ description: 'runId names a run the key may not read (`RUN_NOT_FOUND`)', type: ApiErrorBodyDoc })
  auditReview(@Query() query: AuditReviewQueryDto): AuditReviewReport {
    return this.queries.auditReview({ runId: query.runId, limit: query.limit });
  }

  /** Each projection's checkpoint, its source's head, and its lag. */
  @Get('projections')
  @RequireScope('operate')
  @ApiOperation({ summary: "Each projection's checkpoint, head and lag" })
  @ApiOkResponse({ description: "each projection's checkpoint, head and lag, and this process's runners", type: ProjectionsAnswerDoc })
  @ApiExtraModels(ProjectionRunnerStatsDoc)
  async projections(): Promise<ProjectionsAnswer> {
    return { projections: await this.lag.status(PROJECTION_LAG_CAP), runners: this.runners.stats() };
  }
}
