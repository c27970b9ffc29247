import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import type { ProjectionsAnswer } from '../projections/read-models.controller';
import type { DocMatches } from './doc-matches';
import { ProjectionRunnerStatsDoc } from './projection-runner-stats.doc';
import { ProjectionStatusDoc } from './projection-status.doc';

/**
 * {@link ProjectionsAnswer} (`GET /projections`) in the OpenAPI document.
 * The controller declares {@link ProjectionRunnerStatsDoc} with `@ApiExtraModels` (it is only referenced from a map).
 */
@ApiSchema({ name: 'ProjectionsAnswer', description: "Each projection's checkpoint, head and lag, and this process's runners" })
export class ProjectionsAnswerDoc implements ProjectionsAnswer {
  @ApiProperty({ type: [ProjectionStatusDoc], description: 'Every projection in every source' })
  readonly projections!: readonly ProjectionStatusDoc[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ProjectionRunnerStatsDoc) },
    description: "This process's runners, by source name (`runs`, `audit`)",
  })
  readonly runners!: Readonly<Record<string, ProjectionRunnerStatsDoc>>;
}

const _matches: DocMatches<ProjectionsAnswerDoc, ProjectionsAnswer> = true;
