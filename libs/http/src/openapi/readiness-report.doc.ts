import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import type { ReadinessReport } from '../health/readiness.service';
import type { DocMatches, Same } from './doc-matches';
import { HealthIndicatorDoc } from './health-indicator.doc';
import { ProjectionReadinessDoc } from './projection-readiness.doc';
import { ReadinessAuthDoc } from './readiness-auth.doc';
import { ReadinessCheckDoc } from './readiness-check.doc';

const OK_ERROR = ['ok', 'error'] as const;

function indicators(description: string) {
  return { type: 'object', additionalProperties: { $ref: getSchemaPath(HealthIndicatorDoc) }, description } as const;
}

/**
 * {@link ReadinessReport} (`GET /ready`, 200 and 503) in the OpenAPI
 * document. The controller declares {@link HealthIndicatorDoc} and
 * {@link ReadinessCheckDoc} with `@ApiExtraModels` (they are only referenced from maps).
 */
@ApiSchema({
  name: 'ReadinessReport',
  description: 'Readiness in the @nestjs/terminus shape (indicators keyed `store:<name>` and `projection:<name>@<source>`), with the same facts grouped by kind',
})
export class ReadinessReportDoc {
  @ApiProperty({ enum: OK_ERROR, description: '`ok` (200) when every store answers and every projection is caught up; `error` (503) otherwise' })
  readonly status!: (typeof OK_ERROR)[number];

  @ApiProperty(indicators('The indicators that are up'))
  readonly info!: Readonly<Record<string, HealthIndicatorDoc>>;

  @ApiProperty(indicators('The indicators that are down'))
  readonly error!: Readonly<Record<string, HealthIndicatorDoc>>;

  @ApiProperty(indicators('Every indicator'))
  readonly details!: Readonly<Record<string, HealthIndicatorDoc>>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ReadinessCheckDoc) },
    description: 'Whether each store answered a cheap read (`runs`, and `audit` when the audit streams live apart)',
  })
  readonly stores!: Readonly<Record<string, ReadinessCheckDoc>>;

  @ApiProperty({ type: [ProjectionReadinessDoc], description: 'Whether each projection is fewer than maxLag events behind its source' })
  readonly projections!: readonly ProjectionReadinessDoc[];

  @ApiProperty({ type: 'integer', description: 'READY_MAX_PROJECTION_LAG' })
  readonly maxLag!: number;

  @ApiProperty({ type: ReadinessAuthDoc })
  readonly auth!: ReadinessAuthDoc;
}

// The indicators are compared through HealthIndicatorDoc's own check; the rest field by field.
const _matches: DocMatches<Omit<ReadinessReportDoc, 'info' | 'error' | 'details'>, Omit<ReadinessReport, 'info' | 'error' | 'details'>> = true;
const _keys: Same<keyof ReadinessReportDoc, keyof ReadinessReport> = true;
