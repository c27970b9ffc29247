import type { ServerResponse } from 'node:http';
import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { replyJson } from '../json-reply';
import { ReadinessService } from './readiness.service';

/** Readiness: 200 when the stores answer and the projections are caught up (within the threshold), 503 otherwise, with the details. */
@ApiTags('service')
@Controller('ready')
export class ReadinessController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Readiness: stores answer, projections caught up (no key needed)' })
  @ApiOkResponse({ description: 'ready' })
  @ApiServiceUnavailableResponse({ description: 'not ready: the body names the failed check' })
  async check(@Res() response: ServerResponse): Promise<void> {
    const report = await this.readiness.check();
    replyJson(response, report.status === 'ok' ? 200 : 503, report);
  }
}
