/**
 * The optimistic-concurrency condition of an append, delete or tombstone, as EventStoreDB
 * understands it: `any`, `no_stream`, `stream_exists`, or an exact revision (the last
 * revision the writer saw).
 */
export type ExpectedRevision =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'exact'; readonly revision: bigint };

/** The proto oneof shape shared by `AppendReq.Options`, `DeleteReq.Options` and `TombstoneReq.Options`. */
export interface ExpectedRevisionOneof {
  hasAny(): boolean;
  hasNoStream(): boolean;
  hasStreamExists(): boolean;
  hasRevision(): boolean;
  getRevision(): string;
}

/**
 * Reads the expected revision oneof of a request's options; `undefined` when none is set
 * (the real server rejects such a request as an invalid argument).
 */
export function readExpectedRevision(options: ExpectedRevisionOneof): ExpectedRevision | undefined {
  if (options.hasAny()) return { kind: 'any' };
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  if (options.hasRevision()) return { kind: 'exact', revision: BigInt(options.getRevision()) };
  return undefined;
}
