import type { CurrentRevision } from '@agent-ledger/event-store';

/** A stream's state, folded by its decider, as of a revision (`no_stream` for a stream not written yet). */
export interface StreamSnapshot<State> {
  readonly state: State;
  readonly revision: CurrentRevision;
}
