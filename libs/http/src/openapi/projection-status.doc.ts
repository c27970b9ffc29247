import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Position } from '@agent-ledger/event-store';
import { ProjectionName } from '@agent-ledger/projections';
import type { ProjectionStatusWithLag } from '../projections/projection-lag.service';
import type { DocMatches } from './doc-matches';
import { ProjectionLagDoc } from './projection-lag.doc';

/** {@link ProjectionStatusWithLag} (a projection in a source, with its lag) in the OpenAPI document. */
@ApiSchema({ name: 'ProjectionStatus', description: 'The state of one projection in one source: checkpoint, head, lag' })
export class ProjectionStatusDoc implements ProjectionStatusWithLag {
  @ApiProperty({ enum: Object.values(ProjectionName) })
  readonly projection!: ProjectionName;

  @ApiProperty({ type: String, description: '`runs` (the run store), or `audit` when the audit streams have a store of their own' })
  readonly source!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The last processed position in the source; null if nothing yet' })
  readonly position!: Position | null;

  @ApiProperty({ type: 'integer' })
  readonly eventsApplied!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When the checkpoint was last written (ms since the epoch); null if never' })
  readonly updatedAt!: number | null;

  @ApiProperty({ type: String, nullable: true, description: "The position of the source's last run / audit event; null when it has none or the source is not read here" })
  readonly headPosition!: Position | null;

  @ApiProperty({ type: Boolean, nullable: true, description: 'Whether the checkpoint is at the head; null when the head is unknown' })
  readonly caughtUp!: boolean | null;

  @ApiProperty({ type: Boolean, description: 'Whether rebuild tables of the projection exist (a rebuild runs, or was abandoned by a crash)' })
  readonly rebuilding!: boolean;

  @ApiProperty({ type: ProjectionLagDoc, nullable: true, description: "Null when the source's head is unknown (a source this process does not read)" })
  readonly lag!: ProjectionLagDoc | null;
}

const _matches: DocMatches<ProjectionStatusDoc, ProjectionStatusWithLag> = true;
