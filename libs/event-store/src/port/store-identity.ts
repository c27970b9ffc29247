/**
 * Who a store is: an identity given to it once, when it is created, and
 * recorded in the store itself (the embedded file's `store_identity` table;
 * EventStoreDB's `$agent-ledger-store` stream). Whatever keeps state derived
 * from a store (read models, the audit-gap saga's ledger) records the
 * identity it followed, so that it notices when it is pointed at another store.
 */
export interface StoreIdentity {
  /** A random UUID (lower case), the same for every process and every reopening of the store. */
  readonly id: string;
  /**
   * When the identity was recorded: the store's creation, or, for an embedded
   * file made before identities existed, the first time this version opened it
   * writable.
   */
  readonly createdAt: Date;
}
