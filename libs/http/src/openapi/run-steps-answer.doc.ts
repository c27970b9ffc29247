import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { RunStepsAnswer } from '../runs/runs.controller';
import type { DocMatches } from './doc-matches';
import { StepRowDoc } from './step-row.doc';

/** {@link RunStepsAnswer} (`GET /runs/{runId}/steps`) in the OpenAPI document. */
@ApiSchema({ name: 'RunStepsAnswer', description: "A run's steps, by round, then call" })
export class RunStepsAnswerDoc implements RunStepsAnswer {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: [StepRowDoc] })
  readonly steps!: readonly StepRowDoc[];
}

const _matches: DocMatches<RunStepsAnswerDoc, RunStepsAnswer> = true;
