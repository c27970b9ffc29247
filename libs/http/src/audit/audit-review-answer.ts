import type { AuditReviewReport } from '@agent-ledger/projections';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';

/** The body of `GET /audit/review`: the read model's report, and the verdict read from the stores. */
export interface AuditReviewAnswer extends AuditReviewReport {
  /** The integrity verdict, read from the stores (never from the read model). */
  readonly verdict: AuditStoreVerdict;
  /** `verdict.findings`: whether the audit's integrity is in doubt. */
  readonly findings: boolean;
}
