import type { RunCommand } from '../run/run-commands';
import type { RunDecider } from '../run/run-decider';
import type { RunDecision } from '../run/run-decision';
import type { RunEvent } from '../run/run-events';
import type { RunState } from '../run/run-state';
import type { DecisionAssertions } from './decider-specification';
import { deciderSpecification } from './decider-specification';

/** The assertions available after `given(...).when(...)` on the run decider. */
export interface RunDecisionAssertions extends DecisionAssertions<RunState, RunEvent, RunDecision> {
  /** The sender lost the lease: it must stop, and nothing is appended. */
  thenLeaseLost(): void;
}

/**
 * Given/when/then specifications for the run decider ({@link deciderSpecification}),
 * with the run's own outcome: `thenLeaseLost`.
 */
export function runDeciderSpecification(decider: RunDecider) {
  const spec = deciderSpecification(decider);
  return {
    given(events: readonly RunEvent[]) {
      return {
        when(command: RunCommand): RunDecisionAssertions {
          const assertions = spec.given(events).when(command);
          return Object.assign(Object.create(assertions) as DecisionAssertions<RunState, RunEvent, RunDecision>, {
            thenLeaseLost() {
              expect(assertions.decision.kind).toBe('leaseLost');
            },
          });
        },
      };
    },
  };
}
