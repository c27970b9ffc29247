import { foldEvents } from '../decider';
import type { AgentLedgerError } from '../errors/agent-ledger-error';
import type { RunCommand } from '../run/run-commands';
import type { RunDecider } from '../run/run-decider';
import type { RunDecision } from '../run/run-decision';
import type { RunEvent } from '../run/run-events';
import type { RunState } from '../run/run-state';

/** The assertions available after `given(...).when(...)`. */
export interface RunDecisionAssertions {
  /** The command is accepted and appends exactly these events (in order). */
  then(expected: readonly RunEvent[]): void;
  /** The command is accepted and appends nothing (an idempotent repeat). */
  thenNothing(): void;
  /** The sender lost the lease: it must stop, and nothing is appended. */
  thenLeaseLost(): void;
  /** The command is refused with this error class (and these fields, if given). */
  thenRejects(errorType: abstract new (...args: never[]) => AgentLedgerError, fields?: Record<string, unknown>): void;
  /** The decision, and the state after applying its events, for finer assertions. */
  readonly decision: RunDecision;
  readonly stateAfter: RunState;
}

/**
 * Given/when/then specifications for the run decider, in the style of a
 * decider specification: `given` past events, `when` a command, `then` the
 * events it appends, the lost lease, or the rule it breaks.
 */
export function runDeciderSpecification(decider: RunDecider) {
  return {
    given(events: readonly RunEvent[]) {
      return {
        when(command: RunCommand): RunDecisionAssertions {
          const decision = decider.decide(command, foldEvents(decider, events));
          const appended = decision.kind === 'accepted' ? decision.events : [];
          const stateAfter = foldEvents(decider, [...events, ...appended]);
          return {
            decision,
            stateAfter,
            then(expected) {
              expect(decision).toEqual({ kind: 'accepted', events: expected });
            },
            thenNothing() {
              expect(decision).toEqual({ kind: 'accepted', events: [] });
            },
            thenLeaseLost() {
              expect(decision.kind).toBe('leaseLost');
            },
            thenRejects(errorType, fields) {
              expect(decision.kind).toBe('rejected');
              if (decision.kind !== 'rejected') return;
              expect(decision.error).toBeInstanceOf(errorType);
              if (fields !== undefined) expect(decision.error).toMatchObject(fields);
            },
          };
        },
      };
    },
  };
}
