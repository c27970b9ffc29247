import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { RebuildAnswer } from '../projections/projection-rebuild.controller';
import type { DocMatches } from './doc-matches';
import { RebuildStateDoc } from './rebuild-state.doc';

/** {@link RebuildAnswer} (`POST` and `GET /projections/rebuild`) in the OpenAPI document. */
@ApiSchema({ name: 'RebuildAnswer', description: 'The rebuild of this process' })
export class RebuildAnswerDoc implements RebuildAnswer {
  @ApiProperty({ type: RebuildStateDoc })
  readonly rebuild!: RebuildStateDoc;
}

const _matches: DocMatches<RebuildAnswerDoc, RebuildAnswer> = true;
