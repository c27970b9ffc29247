import type { ServerResponse } from 'node:http';
import { Controller, Get, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { replyJson } from '../json-reply';
import { HealthIndicatorDoc } from '../openapi/health-indicator.doc';
import { ReadinessCheckDoc } from '../openapi/readiness-check.doc';
import { ReadinessReportDoc } from '../openapi/readiness-report.doc';
import { ReadinessService } from './readiness.service';

/** Readiness: 200 when the stores answer and the projections are caught up (within the threshold), 503 otherwise, with the details. */
@ApiTags('service')
@Controller('ready')
export class ReadinessController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Readiness: stores answer, projections caught up (no key needed)' })
  @ApiOkResponse({ description: 'ready', type: ReadinessReportDoc })
  @ApiServiceUnavailableResponse({ description: 'not ready: the body names the failed check', type: ReadinessReportDoc })
  @ApiExtraModels(HealthIndicatorDoc, ReadinessCheckDoc)
  async check(@Res() response: ServerResponse): Promise<void> {
    const report = await this.readiness.check();
    replyJson(response, report.status === 'ok' ? 200 : 503, report);
  }
}
