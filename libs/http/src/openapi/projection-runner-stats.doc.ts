import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Position } from '@agent-ledger/event-store';
import type { ProjectionRunnerStats } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';

/** {@link ProjectionRunnerStats} (one source's runner in this process) in the OpenAPI document. */
@ApiSchema({ name: 'ProjectionRunnerStats', description: "What one source's projection runner did in this process" })
export class ProjectionRunnerStatsDoc implements ProjectionRunnerStats {
  @ApiProperty({ type: Boolean })
  readonly running!: boolean;

  @ApiProperty({ type: 'integer', description: 'Transactions committed' })
  readonly batches!: number;

  @ApiProperty({ type: 'integer', description: 'Events read from the source' })
  readonly eventsRead!: number;

  @ApiProperty({ type: 'integer', description: 'Events applied, summed over projections' })
  readonly eventsApplied!: number;

  @ApiProperty({ type: 'integer', description: 'The most events in one transaction so far' })
  readonly largestBatch!: number;

  @ApiProperty({ type: 'integer', description: 'Resubscriptions because a checkpoint moved (a rebuild was swapped in)' })
  readonly resubscriptions!: number;

  @ApiProperty({ type: 'integer' })
  readonly failures!: number;

  @ApiProperty({ type: String, nullable: true, description: "The last failure's message" })
  readonly lastError!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The position of the last event processed' })
  readonly position!: Position | null;
}

const _matches: DocMatches<ProjectionRunnerStatsDoc, ProjectionRunnerStats> = true;
