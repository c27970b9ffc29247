import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApprovalPage } from '@agent-ledger/projections';
import { ApprovalRowDoc } from './approval-row.doc';
import type { DocMatches } from './doc-matches';

/** {@link ApprovalPage} (`GET /approvals`) in the OpenAPI document. */
@ApiSchema({ name: 'ApprovalPage', description: 'A page of requests for approval, newest first (requestedAt, then approvalId)' })
export class ApprovalPageDoc implements ApprovalPage {
  @ApiProperty({ type: [ApprovalRowDoc] })
  readonly approvals!: readonly ApprovalRowDoc[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass it as `cursor` for the next page; null on the last page' })
  readonly nextCursor!: string | null;
}

const _matches: DocMatches<ApprovalPageDoc, ApprovalPage> = true;
