/** An event as a writer proposes it (one `ProposedMessage` of `Append` or `BatchAppend`). */
export interface ProposedEvent {
  /** Canonical lower-case UUID chosen by the writer; the key of idempotent appends. */
  readonly id: string;
  /** The `type` metadata entry. */
  readonly type: string;
  /** The `content-type` metadata entry: `application/json` or `application/octet-stream`. */
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

/** An event once written to the log, with its stream revision and `$all` position. */
export interface RecordedEvent extends ProposedEvent {
  readonly streamName: string;
  /** 0-based revision in its stream; `2^63 - 1` for a tombstone record. */
  readonly revision: bigint;
  /**
   * Position in `$all`. Commit and prepare positions are equal, as for every event written by
   * an implicit transaction in EventStoreDB 20+; the value is an opaque, strictly increasing
   * byte-like offset, not an index (consecutive events are not 1 apart).
   */
  readonly position: bigint;
  /** 100 ns ticks since the Unix epoch (see `ticks.ts`). */
  readonly created: bigint;
}
