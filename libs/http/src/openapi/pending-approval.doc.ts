import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { PendingApproval } from '@agent-ledger/domain';
import { ApprovalCallDoc } from './approval-call.doc';
import type { DocMatches } from './doc-matches';

const ON_DENIAL = ['tellModel', 'endRun'] as const;

/** {@link PendingApproval} (what a `WAITING_FOR_APPROVAL` run waits for) in the OpenAPI document. */
@ApiSchema({ name: 'PendingApproval', description: 'The calls of one model round that wait for a decision (one decision covers them all)' })
export class PendingApprovalDoc implements PendingApproval {
  @ApiProperty({ type: 'integer' })
  readonly round!: number;

  @ApiProperty({ type: [ApprovalCallDoc] })
  readonly calls!: readonly ApprovalCallDoc[];

  @ApiProperty({ enum: ON_DENIAL, description: 'What a denial does: `tellModel` (the model is told) or `endRun` (the run ends APPROVAL_DENIED)' })
  readonly onDenial!: (typeof ON_DENIAL)[number];

  @ApiProperty({ type: 'integer', description: 'ms since the epoch' })
  readonly requestedAt!: number;
}

const _matches: DocMatches<PendingApprovalDoc, PendingApproval> = true;
