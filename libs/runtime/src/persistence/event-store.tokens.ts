/** Injection token of the event store that holds the runs' streams (`run-<runId>`). */
export const RUN_EVENT_STORE = Symbol('agent-ledger:RunEventStore');

/**
 * Injection token of the event store that holds the audit streams
 * (`audit-<runId>`). The same store as the runs' by default; it may be a store
 * of its own (a second embedded file, say), so that auditors' access and
 * retention can differ.
 */
export const AUDIT_EVENT_STORE = Symbol('agent-ledger:AuditEventStore');
