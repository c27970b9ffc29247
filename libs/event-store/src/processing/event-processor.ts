import type { RecordedEvent } from '../port/event';
import type { EventFilter } from '../port/event-filter';

/**
 * A consumer of `$all` fed by a {@link ProcessorRunner}: a projector (a read
 * model) or a reactor (a saga, a queue). It keeps its state in a state store
 * ({@link ProcessorStateStore}: the processors' database, the read models'
 * file), where the runner keeps its checkpoint: each batch of events is
 * applied by every processor of the store, and every checkpoint moved, in ONE
 * transaction of that store.
 */
export interface EventProcessor {
  /**
   * A stable name (letters, digits, `.`, `_`, `-`): the key of its checkpoint.
   * A new name starts from the beginning of the store.
   */
  readonly name: string;
  /** The events it takes (matched in the process; the runner reads the union of its processors' filters). @default every event */
  readonly filter?: EventFilter;
  /**
   * Applies events, in `$all` order: those of the batch after its checkpoint
   * that match its filter (never an empty list). Called inside the batch's
   * transaction of its state store and synchronous: its writes there commit
   * with the checkpoints; a throw rolls the whole batch back (every
   * processor's writes and every checkpoint), and the runner retries it after
   * a back-off. It must not have effects outside its store (no command, no
   * I/O): keep those for {@link observe} or for a later read of the state.
   * @returns how many of the events it applied, when it skipped some (a duplicate delivery): counted in the runner's stats and given to the store with the checkpoint; nothing means all
   */
  apply(events: readonly RecordedEvent[]): void | number;
  /**
   * Called after the batch's transaction committed, with every event of the
   * batch that matches the filter, whether this runner applied it or another
   * process sharing the database had already (then `apply` did not see it):
   * for notifications (wake workers, cancel listeners). An event the runner
   * reads a second time (after a checkpoint moved back under it) is not
   * observed again. A throw is reported to the runner's `onError`; it does
   * not undo the batch. A property that may be `undefined` (not only
   * absent), so that a class whose constructor takes it as an optional
   * parameter property implements the interface also in a project that
   * compiles with `exactOptionalPropertyTypes`.
   */
  readonly observe?: ((events: readonly RecordedEvent[]) => void) | undefined;
  /**
   * Forgets everything it derived from the store (its rows), inside a
   * transaction: the runner calls it when the database was made from another
   * store and the policy is `reset`; the processor then starts from the
   * beginning of the store.
   */
  reset(): void;
}
