import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { HealthReport } from '../health/health.controller';
import type { DocMatches } from './doc-matches';

const OK = ['ok'] as const;

/** {@link HealthReport} (`GET /health`) in the OpenAPI document. */
@ApiSchema({ name: 'HealthReport', description: 'Liveness: the process serves HTTP' })
export class HealthReportDoc implements HealthReport {
  @ApiProperty({ enum: OK })
  readonly status!: (typeof OK)[number];
}

const _matches: DocMatches<HealthReportDoc, HealthReport> = true;
