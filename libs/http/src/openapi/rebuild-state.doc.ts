import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ProjectionName } from '@agent-ledger/projections';
import { PROJECTION_NAMES } from '@agent-ledger/projections';
import type { RebuildState, RebuildStateName } from '../projections/rebuild-state';
import { REBUILD_STATES } from '../projections/rebuild-state';
import type { DocMatches } from './doc-matches';
import { RebuildProgressDoc } from './rebuild-progress.doc';
import { RebuildResultDoc } from './rebuild-result.doc';

/** {@link RebuildState} in the OpenAPI document. */
@ApiSchema({ name: 'RebuildState', description: 'The rebuild of this process: the running one, or the last one (idle until one is requested)' })
export class RebuildStateDoc implements RebuildState {
  @ApiProperty({ enum: REBUILD_STATES })
  readonly state!: RebuildStateName;

  @ApiProperty({ enum: PROJECTION_NAMES, isArray: true, nullable: true, description: 'The projections rebuilt; null while idle' })
  readonly projections!: readonly ProjectionName[] | null;

  @ApiProperty({ type: String, nullable: true, example: 'key:ops', description: "Who asked for it: the label of the caller's principal, `key:<id>` (`development` without keys); null while idle" })
  readonly requestedBy!: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When it was asked for, ms since the epoch' })
  readonly startedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When it succeeded or failed, ms since the epoch' })
  readonly finishedAt!: number | null;

  @ApiProperty({ type: RebuildProgressDoc, nullable: true, description: 'The last progress record; null before the first' })
  readonly progress!: RebuildProgressDoc | null;

  @ApiProperty({ type: RebuildResultDoc, nullable: true, description: 'What it did, once succeeded' })
  readonly result!: RebuildResultDoc | null;

  @ApiProperty({ type: String, nullable: true, description: "Why it failed (the error's message)" })
  readonly error!: string | null;
}

const _matches: DocMatches<RebuildStateDoc, RebuildState> = true;
