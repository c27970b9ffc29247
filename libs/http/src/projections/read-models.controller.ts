import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectionRunnerStats } from '@agent-ledger/projections';
import { ProjectionRunnerPool } from '@agent-ledger/projections';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';
import { RequireScope } from '../auth/auth.decorators';
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

/** The projections' status. */
@ApiTags('read models')
@Controller()
export class ReadModelsController {
  constructor(
    private readonly lag: ProjectionLagService,
    private readonly runners: ProjectionRunnerPool,
  ) {}

  /** Each projection's checkpoint, its source's head, and its lag. */
  @Get('projections')
  @RequireScope('operate')
  @ApiOperation({ summary: "Each projection's checkpoint, head and lag" })
  @ApiStoreFaults()
  @ApiOkResponse({ description: "each projection's checkpoint, head and lag, and this process's runners" })
  async projections(): Promise<ProjectionsAnswer> {
    return { projections: await this.lag.status(PROJECTION_LAG_CAP), runners: this.runners.stats() };
  }
}
