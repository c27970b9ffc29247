import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A scripted agent was asked for a round its script does not have (a script
 * without a final round, or a run whose rounds outnumber it): its
 * configuration is wrong, and the run fails (`configuration`, not retried)
 * rather than completing with an answer nobody wrote.
 */
export class ScriptEndedError extends AgentLedgerError {
  readonly code = 'SCRIPT_ENDED' as const;
  readonly failureClass = 'configuration' as const;

  constructor(
    /** The agent whose script it is. */
    readonly agent: string,
    /** The round asked for (0-based). */
    readonly round: number,
    /** How many rounds the script has. */
    readonly rounds: number,
  ) {
    super(
      `The script of agent ${agent} has ${rounds} ${rounds === 1 ? 'round' : 'rounds'} and was asked for round ${round}: ` +
        'add the rounds it needs, ending with a final answer, to its provider.script in the agents file',
    );
  }
}
