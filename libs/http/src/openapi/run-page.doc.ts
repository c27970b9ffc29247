import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { RunPage } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';
import { RunStatusRowDoc } from './run-status-row.doc';

/** {@link RunPage} (`GET /runs`) in the OpenAPI document. */
@ApiSchema({ name: 'RunPage', description: 'A page of runs, newest first (requestedAt, then run id)' })
export class RunPageDoc implements RunPage {
  @ApiProperty({ type: [RunStatusRowDoc] })
  readonly runs!: readonly RunStatusRowDoc[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass it as `cursor` for the next page; null on the last page' })
  readonly nextCursor!: string | null;
}

const _matches: DocMatches<RunPageDoc, RunPage> = true;
