import { IsIn, IsString, Length, Matches } from 'class-validator';
import { PageFilter } from './page-filter';
import { IsOmittable, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import { APPROVAL_STATES, ApprovalState } from '../approvals/approval-rows';
import type { ListApprovalsQuery } from '../queries/approval-list-query';

/**
 * The filters and page of {@link ListApprovals} on the bus, with the rules of
 * `GET /approvals`'s query (the same as `GET /runs`'s for `agent`, times,
 * `limit` and `cursor`; times are ms since the epoch here).
 */
export class ApprovalListFilter extends PageFilter implements ListApprovalsQuery {
  @IsOmittable()
  @IsIn(APPROVAL_STATES)
  readonly state?: ApprovalState;

  @IsOmittable()
  @Length(1, 128)
  @IsString()
  readonly agent?: string;

  @IsOmittable()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId?: string;
}
