import type { RunStatusRow } from '../contract/run-status-row';
import { AgentLedgerError } from './agent-ledger-error';

/**
 * `waitForSettled` gave up: its `timeoutMs` passed (`timeout`) or its signal
 * aborted (`aborted`) before the run settled. `lastSeen` is the run as last
 * read (null if the read model had not shown it yet); `cause` the last error
 * met while polling, if any.
 */
export class AgentLedgerWaitError extends AgentLedgerError {
  constructor(
    readonly reason: 'timeout' | 'aborted',
    readonly runId: string,
    readonly lastSeen: RunStatusRow | null,
    options?: { readonly cause?: unknown; readonly timeoutMs?: number },
  ) {
    super(
      reason === 'timeout'
        ? `Run ${runId} did not settle within ${options?.timeoutMs ?? '?'} ms (last seen: ${lastSeen?.status ?? 'not yet in the read model'})`
        : `Waiting for run ${runId} was aborted (last seen: ${lastSeen?.status ?? 'not yet in the read model'})`,
      options,
    );
  }
}
