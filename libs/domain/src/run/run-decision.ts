import type { AgentLedgerError } from '../errors/agent-ledger-error';
import type { RunEvent } from './run-events';
import type { RunStatus } from './run-status';

/** The command is accepted: append these events (none, when it was already done: an idempotent repeat). */
export interface Accepted {
  readonly kind: 'accepted';
  readonly events: readonly RunEvent[];
}

/**
 * The segment that sent the command no longer holds the run's lease (it was
 * reaped, settled, or claimed by someone else). Not an error to retry: the
 * segment must stop at once, settle nothing and record nothing further.
 */
export interface LeaseLost {
  readonly kind: 'leaseLost';
  readonly runId: string;
  readonly status: RunStatus;
  readonly currentOwner: string | null;
}

/** The command breaks a rule; nothing is appended. */
export interface Rejected {
  readonly kind: 'rejected';
  readonly error: AgentLedgerError;
}

/** What the run decider answers to a command. */
export type RunDecision = Accepted | LeaseLost | Rejected;

/** An accepted decision. */
export function accepted(...events: RunEvent[]): Accepted {
  return { kind: 'accepted', events };
}

/** A rejected decision. */
export function rejected(error: AgentLedgerError): Rejected {
  return { kind: 'rejected', error };
}
