import type { EventFilter, EventStore } from '@agent-ledger/event-store';
import { categoryFilter } from '@agent-ledger/event-store';
import { StreamCategory } from '@agent-ledger/domain';

/**
 * An event store the projections read, with a name that identifies it in
 * checkpoints (`<projection>@<name>`). When the audit streams live in a
 * second store, give two sources: positions of different stores are not
 * comparable, so each has its own runner and its own checkpoints.
 */
export interface ProjectionSource {
  /** A stable name (letters, digits, `.`, `_`, `-`), e.g. `runs` and `audit`. Changing it restarts from the beginning. */
  readonly name: string;
  /** The store. The projections never append to it and never close it. */
  readonly store: EventStore;
}

/** What the projections subscribe to: the `run` and `audit` categories. */
export const PROJECTED_EVENTS_FILTER: EventFilter = categoryFilter(StreamCategory.RUN, StreamCategory.AUDIT);

const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Whether a source name is acceptable. */
export function isValidSourceName(name: unknown): name is string {
  return typeof name === 'string' && SOURCE_NAME.test(name);
}
