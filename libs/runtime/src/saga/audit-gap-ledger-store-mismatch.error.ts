/** The stores the audit-gap saga follows: the run store (writes, decisions) and the audit store (audits, statements). */
export type SagaStoreRole = 'runs' | 'audit';

/** One store whose identity is not the one the saga's ledger recorded. */
export interface SagaStoreMismatch {
  readonly role: SagaStoreRole;
  /** The identity the ledger recorded, or null for a ledger made before identities were recorded whose checkpoints do not fit the store. */
  readonly recordedStoreId: string | null;
  /** The identity of the store the saga is given now. */
  readonly currentStoreId: string;
}

/**
 * The audit-gap saga's ledger (its checkpoints and pending deadlines) was made
 * from other stores than the ones the saga is given: following them from its
 * checkpoints would skip or misread their events. Reset the ledger
 * (`onStoreMismatch: 'reset'`: the saga then follows the stores from their
 * start; its decisions are idempotent), or give the saga its own stores back.
 */
export class AuditGapLedgerStoreMismatchError extends Error {
  readonly code = 'SAGA_STORE_MISMATCH' as const;

  constructor(
    /** The ledger's file. */
    readonly path: string,
    readonly mismatches: readonly SagaStoreMismatch[],
  ) {
    super(
      `The audit-gap saga's ledger ${path} was made from another event store than ${mismatches
        .map((m) => `the ${m.role === 'runs' ? 'run' : 'audit'} store (store ${m.currentStoreId}; the ledger ${m.recordedStoreId === null ? 'recorded no identity and its checkpoints do not fit it' : `recorded store ${m.recordedStoreId}`})`)
        .join(' and ')}: reset it to follow these stores from their start`,
    );
    this.name = 'AuditGapLedgerStoreMismatchError';
  }
}
