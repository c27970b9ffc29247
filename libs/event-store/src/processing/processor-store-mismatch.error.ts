/**
 * The processors' database was made from another event store than the one a
 * runner is given (the store identities differ, see `EventStore.storeIdentity`):
 * its checkpoints and rows describe another history. Thrown by
 * `ProcessorRunner.open` with `onStoreMismatch: 'refuse'` (nothing is written).
 */
export class ProcessorStoreMismatchError extends Error {
  constructor(
    /** The processors' database. */
    readonly path: string,
    /** The runner's source name. */
    readonly source: string,
    /** The identity the database recorded for that source. */
    readonly recordedStoreId: string,
    /** The identity of the store given now. */
    readonly currentStoreId: string,
  ) {
    super(
      `The processors' database ${path} was made from event store ${recordedStoreId} for source "${source}", not from ${currentStoreId}: reset it (onStoreMismatch: reset) or point the process at the store it was made from`,
    );
    this.name = new.target.name;
  }
}
