import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { HealthIndicatorResult, ProjectionReadiness } from '../health/readiness.service';
import type { DocMatches } from './doc-matches';
import { ProjectionLagDoc } from './projection-lag.doc';

const UP_DOWN = ['up', 'down'] as const;

/**
 * One indicator of the readiness report's `info`, `error` and `details`, in
 * the `@nestjs/terminus` shape: `status`, and the rest of its check (a
 * store's `problem` and `message`; a projection's too, with its position and lag).
 */
@ApiSchema({
  name: 'HealthIndicator',
  description: 'One indicator (`store:<name>` or `projection:<name>@<source>`): `up` or `down`, with the details of its check',
})
export class HealthIndicatorDoc {
  @ApiProperty({ enum: UP_DOWN })
  readonly status!: (typeof UP_DOWN)[number];

  @ApiPropertyOptional({ type: String, description: 'Why it is down: an error code (STORE_UNAVAILABLE, TIMEOUT...) or LAGGING' })
  readonly problem?: string;

  @ApiPropertyOptional({ type: String })
  readonly message?: string;

  @ApiPropertyOptional({ type: String, description: 'A projection indicator: the projection' })
  readonly projection?: string;

  @ApiPropertyOptional({ type: String, description: 'A projection indicator: its source' })
  readonly source?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'A projection indicator: its checkpoint' })
  readonly position?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: "A projection indicator: its source's head" })
  readonly headPosition?: string | null;

  @ApiPropertyOptional({ type: ProjectionLagDoc, nullable: true, description: 'A projection indicator: its lag' })
  readonly lag?: ProjectionLagDoc | null;
}

// What `indicator()` of the readiness service makes of a check: its `ok` as `status`, the rest as it is.
const _matches: DocMatches<HealthIndicatorDoc, { readonly status: HealthIndicatorResult[string]['status'] } & Partial<Omit<ProjectionReadiness, 'ok'>>> = true;
