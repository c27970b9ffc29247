import type { Position } from '../port/position';

/**
 * Where event processors keep their checkpoints and state: one database (a
 * {@link ProcessorDatabase}, the read models' file...) that a
 * {@link ProcessorRunner} writes a batch into in ONE transaction, the
 * processors' writes with their checkpoints. A runner may feed processors
 * kept in several such stores (one transaction per store per batch).
 */
export interface ProcessorStateStore {
  /** The file (or `:memory:`), for messages. */
  readonly path: string;
  /**
   * Runs `work` in one write transaction that reads the latest committed
   * state of every process sharing the store: everything it wrote commits,
   * or, if it throws, nothing.
   */
  transaction<T>(work: () => T): T;
  /** The position of the last event a processor took from a source (null: none yet, it starts at the beginning). */
  checkpoint(processor: string, source: string): Position | null;
  /**
   * Moves a processor's checkpoint (inside {@link transaction}): `position`
   * is the last event of the batch; `lastApplied`, when given, the last event
   * it applied, and `appliedCount` how many it applied in this batch.
   */
  saveCheckpoint(processor: string, source: string, position: Position, lastApplied?: Position, appliedCount?: number): void;
  /** The identity of the event store a source was read from (undefined: none recorded). */
  sourceIdentity(source: string): string | undefined;
  /** Records the identity of the event store a source is read from. */
  recordSourceIdentity(source: string, storeId: string, now: number): void;
  /** Whether any processor has a checkpoint in a source. */
  hasCheckpoints(source: string): boolean;
  /** Forgets every checkpoint of a source (inside {@link transaction}). */
  forgetCheckpoints(source: string): void;
}
