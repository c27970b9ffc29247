import { Controller, Get, Query } from '@nestjs/common';
import type { AuditReviewReport, ProjectionRunnerStats } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRunnerPool } from '@agent-ledger/projections';
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
@Controller()
export class ReadModelsController {
  constructor(
    private readonly queries: ProjectionQueries,
    private readonly lag: ProjectionLagService,
    private readonly runners: ProjectionRunnerPool,
  ) {}

  /** The report of the audit-review read model: every write and its audit state, runs failed closed, gaps, interrupted writes. */
  @Get('audit/review')
  auditReview(@Query() query: AuditReviewQueryDto): AuditReviewReport {
    return this.queries.auditReview({ runId: query.runId, limit: query.limit });
  }

  /** Each projection's checkpoint, its source's head, and its lag. */
  @Get('projections')
  async projections(): Promise<ProjectionsAnswer> {
    return { projections: await this.lag.status(PROJECTION_LAG_CAP), runners: this.runners.stats() };
  }
}
