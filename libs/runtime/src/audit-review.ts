/**
 * `@agent-ledger/runtime/audit-review`: the audit's integrity verdict read
 * from the stores ({@link reviewAuditStores}: every run's hash chain, every
 * executed write matched to its audit), without Nest, the bus or the engine:
 * it loads the event store and the review only (the CLI's `audit verify`).
 * The same functions are exported by `@agent-ledger/runtime`.
 */
export * from './audit/audit-store-verdict';
export * from './audit/audit-store-reviewer';
export { AUDIT_VERDICT_CHECKPOINT_FILE, AUDIT_VERDICT_CHECKPOINT_FORMAT } from './audit/audit-verdict-checkpoint-file';
