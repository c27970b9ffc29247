import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { CancelRunAnswer } from '../runs/run-answers';
import type { DocMatches } from './doc-matches';
import { RunViewDoc } from './run-view.doc';

/** {@link CancelRunAnswer} (`POST /runs/{runId}/cancel`: 200 or 202) in the OpenAPI document. */
@ApiSchema({ name: 'CancelRunAnswer', description: 'The cancel is recorded: the run as its own stream tells it (CANCELLED, or RUNNING with cancelRequested until its next step boundary)' })
export class CancelRunAnswerDoc implements CancelRunAnswer {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: Boolean, enum: [true] })
  readonly cancelRequested!: true;

  @ApiProperty({ type: RunViewDoc })
  readonly run!: RunViewDoc;
}

const _matches: DocMatches<CancelRunAnswerDoc, CancelRunAnswer> = true;
