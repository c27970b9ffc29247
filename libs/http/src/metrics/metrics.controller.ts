import type { ServerResponse } from 'node:http';
import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';
import { RequireScope } from '../auth/auth.decorators';
import { MetricsService } from './metrics.service';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheusText } from './prometheus-text';

/** `GET /metrics`: Prometheus text format (scope `metrics:read` or `operate`). */
@ApiTags('service')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @RequireScope('metrics:read', 'operate')
  @ApiOperation({ summary: 'Metrics in the Prometheus text format' })
  @ApiStoreFaults()
  // The 200 names its own content type (text/plain); the errors (401, 403) are JSON, like every error of the API.
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4`)', content: { 'text/plain': { schema: { type: 'string' } } } })
  async scrape(@Res() response: ServerResponse): Promise<void> {
    const text = renderPrometheusText(await this.metrics.collect());
    response.statusCode = 200;
    response.setHeader('Content-Type', PROMETHEUS_CONTENT_TYPE);
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
  }
}
