import type { AuditStoreVerdict } from '@agent-ledger/domain';
import type { AuditReviewQuery, AuditReviewReport } from '../queries/audit-review-report';

/** The options of {@link GetAuditReview}: the report's (`runId`, `limit`) and the verdict's (`full`). */
export interface AuditReviewRequest extends AuditReviewQuery {
  /**
   * Verify every run from both stores' first event, whatever the checkpoint
   * (`GET /audit/review?full=true`); with `runId` the run's two streams are
   * read whole anyway.
   * @default false
   */
  readonly full?: boolean;
}

/**
 * The answer of `GetAuditReview` and of `GET /audit/review`: the audit-review
 * read model's report (the dashboard's figures), with the integrity verdict
 * read from the stores (never from the read model).
 */
export interface AuditReviewAnswer extends AuditReviewReport {
  /**
   * The integrity verdict, read from the stores. Null only when the read
   * models run without the runtime's verdict (`ProjectionsModule` imported
   * alone, with no {@link AUDIT_VERDICT_SOURCE}): `AgentLedgerModule` with
   * `readModels`, and so the service, always give it.
   */
  readonly verdict: AuditStoreVerdict | null;
  /** `verdict.findings`: whether the audit's integrity is in doubt (null without a verdict). */
  readonly findings: boolean | null;
}

/** Where `GetAuditReview` gets its verdict from: the runtime's reviewer, which the read models cannot know. */
export interface AuditVerdictSource {
  /**
   * The verdict on the stores as they are now: every run (from the verified
   * checkpoint, or a full pass with `full`), or one run (`runId`, its two
   * streams read whole).
   */
  verdict(request: AuditReviewRequest): Promise<AuditStoreVerdict>;
}

/**
 * The injection token of an optional {@link AuditVerdictSource} for the read
 * models' `GetAuditReview`: `AgentLedgerModule` provides it (the runtime's
 * `AuditStoreReviewer`), so that the query answers what `GET /audit/review`
 * answers.
 */
export const AUDIT_VERDICT_SOURCE = Symbol('AUDIT_VERDICT_SOURCE');

/**
 * How long `GetAuditReview` (and so `GET /audit/review`) waits, after reading
 * the verdict from the stores, for this process's read models to apply what
 * the stores hold: so that the report's figures are not older than its
 * verdict (a write audited a moment ago is never reported without its audit).
 */
export const AUDIT_REVIEW_SETTLE_WAIT_MS = 2_000;
