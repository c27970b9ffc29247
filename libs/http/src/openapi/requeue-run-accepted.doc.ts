import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { RequeueRunAccepted } from '../runs/run-answers';
import type { DocMatches } from './doc-matches';

/** {@link RequeueRunAccepted} (`POST /runs/{runId}/requeue`: 202) in the OpenAPI document. */
@ApiSchema({ name: 'RequeueRunAccepted', description: 'The dead-lettered run stays FAILED; its continuation run is queued' })
export class RequeueRunAcceptedDoc implements RequeueRunAccepted {
  @ApiProperty({ type: String, description: 'The dead-lettered run' })
  readonly runId!: string;

  @ApiProperty({ type: String, description: 'The continuation run, queued' })
  readonly continuationRunId!: string;
}

const _matches: DocMatches<RequeueRunAcceptedDoc, RequeueRunAccepted> = true;
