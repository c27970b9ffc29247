/**
 * What to do at start-up when the read models were made from another event
 * store than the one they are given.
 */
export const StoreMismatchPolicy = {
  /** Refuse to start (`ReadModelStoreMismatchError`): the operator rebuilds, or points back at the right store. */
  REFUSE: 'refuse',
  /** Rebuild every projection from the given stores (logged), then start. */
  REBUILD: 'rebuild',
} as const;

/** Union of the values of {@link StoreMismatchPolicy}. */
export type StoreMismatchPolicy = (typeof StoreMismatchPolicy)[keyof typeof StoreMismatchPolicy];

/** Every {@link StoreMismatchPolicy}, for messages and checks. */
export const STORE_MISMATCH_POLICIES: readonly StoreMismatchPolicy[] = Object.values(StoreMismatchPolicy);
