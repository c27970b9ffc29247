import type { CurrentRevision } from '@agent-ledger/event-store';

/** A stream's state, folded by its decider, as of a revision (`no_stream` for a stream not written yet). */
export interface StreamSnapshot<State> {
  /** The state folded from the stream's events up to `revision`. */
  readonly state: State;
  /** The revision of the stream's last event folded: the expected revision of the next append. */
  readonly revision: CurrentRevision;
}
