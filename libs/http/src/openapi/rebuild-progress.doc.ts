import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ProjectionName, RebuildProgress } from '@agent-ledger/projections';
import { PROJECTION_NAMES, RebuildPhase } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';

/** {@link RebuildProgress} (a progress record of a rebuild) in the OpenAPI document. */
@ApiSchema({ name: 'RebuildProgress', description: 'The last progress record of a rebuild' })
export class RebuildProgressDoc implements RebuildProgress {
  @ApiProperty({ enum: Object.values(RebuildPhase), description: '`started`, `replaying`, `catchingUp`, `swapped` (the last)' })
  readonly phase!: RebuildPhase;

  @ApiProperty({ enum: PROJECTION_NAMES, isArray: true })
  readonly projections!: readonly ProjectionName[];

  @ApiProperty({ type: String, nullable: true, description: 'The source being replayed (`runs`, `audit`); null at the start and at the swap' })
  readonly source!: string | null;

  @ApiProperty({ type: 'integer', description: 'Events read from the sources so far' })
  readonly eventsDone!: number;

  @ApiProperty({ type: 'integer', description: 'Events applied, summed over the projections rebuilt' })
  readonly eventsApplied!: number;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1, description: 'Estimated fraction done; null when the sources are empty' })
  readonly fractionDone!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'eventsDone / fractionDone' })
  readonly eventsTotalEstimate!: number | null;

  @ApiProperty({ type: Number, description: 'Events read per second since the start' })
  readonly eventsPerSecond!: number;

  @ApiProperty({ type: 'integer' })
  readonly elapsedMs!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Estimated time left; null while unknown' })
  readonly etaMs!: number | null;
}

const _matches: DocMatches<RebuildProgressDoc, RebuildProgress> = true;
