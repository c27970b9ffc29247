import type { Decider } from '../decider';
import type { Decision } from '../decision';
import { isAccepted, isRejected } from '../decision';
import { foldEvents } from '../decider';
import type { AgentLedgerError } from '../errors/agent-ledger-error';

/** The assertions available after `given(...).when(...)`, for any decider that answers a {@link Decision}. */
export interface DecisionAssertions<State, Event, D> {
  /** The command is accepted and appends exactly these events (in order). */
  then(expected: readonly Event[]): void;
  /** The command is accepted and appends nothing (an idempotent repeat). */
  thenNothing(): void;
  /** The command is refused with this error class (and these fields, if given), and appends nothing. */
  thenRejects(errorType: abstract new (...args: never[]) => AgentLedgerError, fields?: Record<string, unknown>): void;
  /** The events the command appends; fails unless it is accepted. */
  readonly events: readonly Event[];
  /** The decision, and the state after applying its events, for finer assertions. */
  readonly decision: D;
  readonly stateAfter: State;
}

/**
 * Given/when/then specifications for a decider, in the style of a decider
 * specification: `given` past events, `when` a command, `then` the events it
 * appends or the rule it breaks. The decider must answer, never throw: a
 * throw fails the spec.
 */
export function deciderSpecification<Command, State, Event, D extends Decision<Event, { readonly kind: string }>>(
  decider: Decider<Command, State, Event, D>,
) {
  return {
    given(events: readonly Event[]) {
      return {
        when(command: Command): DecisionAssertions<State, Event, D> {
          const decision = decider.decide(command, foldEvents(decider, events));
          const appended: readonly Event[] = isAccepted<Event>(decision) ? decision.events : [];
          return {
            decision,
            stateAfter: foldEvents(decider, [...events, ...appended]),
            get events() {
              if (!isAccepted(decision)) throw new Error(`The command was not accepted: ${JSON.stringify(decision)}`);
              return appended;
            },
            then(expected) {
              expect(decision).toEqual({ kind: 'accepted', events: expected });
            },
            thenNothing() {
              expect(decision).toEqual({ kind: 'accepted', events: [] });
            },
            thenRejects(errorType, fields) {
              expect(decision.kind).toBe('rejected');
              if (!isRejected(decision)) return;
              expect(decision.error).toBeInstanceOf(errorType);
              if (fields !== undefined) expect(decision.error).toMatchObject(fields);
            },
          };
        },
      };
    },
  };
}
