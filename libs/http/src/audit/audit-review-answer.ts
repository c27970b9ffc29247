import type { AuditReviewAnswer as ReadModelAuditReviewAnswer } from '@agent-ledger/projections';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';

/**
 * The body of `GET /audit/review`: `GetAuditReview`'s answer (the read
 * model's report, and the verdict read from the stores), which the service
 * always gives with its verdict.
 */
export interface AuditReviewAnswer extends ReadModelAuditReviewAnswer {
  /** The integrity verdict, read from the stores (never from the read model). */
  readonly verdict: AuditStoreVerdict;
  /** `verdict.findings`: whether the audit's integrity is in doubt. */
  readonly findings: boolean;
}
