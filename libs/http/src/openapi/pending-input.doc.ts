import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { PendingInput } from '@agent-ledger/domain';
import type { DocMatches } from './doc-matches';

/** {@link PendingInput} (what a `WAITING_FOR_INPUT` run waits for) in the OpenAPI document. */
@ApiSchema({ name: 'PendingInput', description: 'The input a tool of the run asked a person for' })
export class PendingInputDoc implements PendingInput {
  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ type: 'integer' })
  readonly round!: number;

  @ApiProperty({ type: 'integer' })
  readonly callIndex!: number;

  @ApiProperty({ type: String })
  readonly toolName!: string;

  @ApiProperty({ type: String, description: 'The question, as the tool asked it' })
  readonly prompt!: string;

  @ApiProperty({ type: 'integer', description: 'ms since the epoch' })
  readonly requestedAt!: number;
}

const _matches: DocMatches<PendingInputDoc, PendingInput> = true;
