import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ProjectionLag } from '../projections/projection-lag.service';
import type { DocMatches } from './doc-matches';

/** {@link ProjectionLag} in the OpenAPI document. */
@ApiSchema({ name: 'ProjectionLag', description: "How far a projection is behind its source's head, in projected (run and audit) events" })
export class ProjectionLagDoc implements ProjectionLag {
  @ApiProperty({ type: 'integer', description: 'Events after the checkpoint, counted up to the cap' })
  readonly events!: number;

  @ApiProperty({ type: Boolean, description: 'True when counting stopped at the cap: the lag is at least `events`' })
  readonly atLeast!: boolean;
}

const _matches: DocMatches<ProjectionLagDoc, ProjectionLag> = true;
