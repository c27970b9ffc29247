import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { IsOmittable, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import type { AuditReviewRequest } from './audit-review-answer';

/** The options of {@link GetAuditReview} on the bus, with the rules of `GET /audit/review`'s query. */
export class AuditReviewFilter implements AuditReviewRequest {
  @IsOmittable()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId?: string;

  @IsOmittable()
  @Min(1)
  @Max(100_000)
  @IsInt()
  readonly limit?: number;

  @IsOmittable()
  @IsBoolean()
  readonly full?: boolean;
}
