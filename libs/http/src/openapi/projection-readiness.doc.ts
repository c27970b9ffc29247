import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ProjectionReadiness } from '../health/readiness.service';
import type { DocMatches } from './doc-matches';
import { ProjectionLagDoc } from './projection-lag.doc';
import { ReadinessCheckDoc } from './readiness-check.doc';

/** {@link ProjectionReadiness} (one projection's check) in the OpenAPI document. */
@ApiSchema({ name: 'ProjectionReadiness', description: 'Whether one projection in one source is fewer than maxLag events behind' })
export class ProjectionReadinessDoc extends ReadinessCheckDoc implements ProjectionReadiness {
  @ApiProperty({ type: String, description: 'The projection (runStatus, steps, auditReview), or `*` when their status could not be read' })
  readonly projection!: string;

  @ApiProperty({ type: String, description: 'The source, or `*` when the status could not be read' })
  readonly source!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly position!: string | null;

  @ApiProperty({ type: String, nullable: true })
  readonly headPosition!: string | null;

  @ApiProperty({ type: ProjectionLagDoc, nullable: true })
  readonly lag!: ProjectionLagDoc | null;
}

const _matches: DocMatches<ProjectionReadinessDoc, ProjectionReadiness> = true;
