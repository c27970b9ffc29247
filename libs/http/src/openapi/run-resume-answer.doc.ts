import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { RunStatus } from '@agent-ledger/domain';
import type { RunResumeAnswer } from '../runs/run-answers';
import type { DocMatches } from './doc-matches';
import { RunViewDoc } from './run-view.doc';

/** {@link RunResumeAnswer} (`POST /runs/{runId}/approval` and `POST /runs/{runId}/input`: 200) in the OpenAPI document. */
@ApiSchema({
  name: 'RunResumeAnswer',
  description: 'The decision or the input is recorded: the run as its own stream tells it (QUEUED again for a worker, or FAILED APPROVAL_DENIED when a denial ended it)',
})
export class RunResumeAnswerDoc implements RunResumeAnswer {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ enum: Object.values(RunStatus), description: '`run.status`, repeated: `QUEUED` (approved, denied with tellModel, or input given: a worker resumes it) or `FAILED` (denied with endRun)' })
  readonly status!: RunStatus;

  @ApiProperty({ type: RunViewDoc })
  readonly run!: RunViewDoc;

  @ApiProperty({
    enum: ['recorded', 'pending'],
    description:
      '`recorded`: the statement of the decision or input is in the run\'s audit chain. `pending`: the decision took effect on the run, but its statement could not be stored yet; nothing it allows happens before it is (the run fails closed if it cannot be); do not send it again (it would be refused, 409)',
  })
  readonly auditStatement!: 'recorded' | 'pending';
}

const _matches: DocMatches<RunResumeAnswerDoc, RunResumeAnswer> = true;
