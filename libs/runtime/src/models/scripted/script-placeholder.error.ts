import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A placeholder of a scripted agent's round cannot be filled from the run's
 * conversation (a `{{result:...}}` of a call that failed or was denied, a
 * path the result does not have, ...): its configuration does not fit what
 * happened, and the run fails (`configuration`, not retried) rather than
 * answering with the placeholder left in, or with a claim nothing backs.
 */
export class ScriptPlaceholderError extends AgentLedgerError {
  readonly code = 'SCRIPT_PLACEHOLDER_UNFILLED' as const;
  readonly failureClass = 'configuration' as const;

  constructor(
    /** The agent whose script it is. */
    readonly agent: string,
    /** The round (0-based). */
    readonly round: number,
    /** The placeholder as written, e.g. `{{result:files.append}}`. */
    readonly placeholder: string,
    /** Why it cannot be filled. */
    readonly problem: string,
  ) {
    super(
      `The script of agent ${agent} cannot fill ${placeholder} in round ${round}: ${problem}. ` +
        'Refer to a call that has what the placeholder reads ({{outcome:...}} and {{error:...}} read any call), or give the round a finalIfDenied or finalIfFailed, in its provider.script in the agents file',
    );
  }
}
