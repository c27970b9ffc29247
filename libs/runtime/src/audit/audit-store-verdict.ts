/*
 * The verdict's types are the domain's (`@agent-ledger/domain`), so that the
 * read models' `GetAuditReview` can name the verdict it answers with; the
 * runtime, which computes it, exports them as before.
 */
export type {
  AuditStoreVerdict,
  AuditStoreVerification,
  AuditVerdictTotals,
  AuditVerificationInfo,
  RunChainBreak,
  StoreWrite,
  StoreWriteWithoutAudit,
  UnauditedWriteAllowance,
} from '@agent-ledger/domain';
