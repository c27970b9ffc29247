import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ProjectionName, RebuildResult } from '@agent-ledger/projections';
import { PROJECTION_NAMES } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';

/** {@link RebuildResult} (what a finished rebuild did) in the OpenAPI document. */
@ApiSchema({ name: 'RebuildResult', description: 'What a finished rebuild did' })
export class RebuildResultDoc implements RebuildResult {
  @ApiProperty({ enum: PROJECTION_NAMES, isArray: true })
  readonly projections!: readonly ProjectionName[];

  @ApiProperty({ type: 'integer' })
  readonly eventsDone!: number;

  @ApiProperty({ type: 'integer' })
  readonly eventsApplied!: number;

  @ApiProperty({ type: 'integer' })
  readonly elapsedMs!: number;

  @ApiProperty({ type: Number })
  readonly eventsPerSecond!: number;
}

const _matches: DocMatches<RebuildResultDoc, RebuildResult> = true;
