import type { ServerResponse } from 'node:http';
import { Controller, Get, Res } from '@nestjs/common';
import { replyJson } from '../http/json-reply';
import { ReadinessService } from './readiness.service';

/** Readiness: 200 when the stores answer and the projections are caught up (within the threshold), 503 otherwise, with the details. */
@Controller('ready')
export class ReadinessController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get()
  async check(@Res() response: ServerResponse): Promise<void> {
    const report = await this.readiness.check();
    replyJson(response, report.status === 'ready' ? 200 : 503, report);
  }
}
