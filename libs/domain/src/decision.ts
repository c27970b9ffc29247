import type { AgentLedgerError } from './errors/agent-ledger-error';

/** The command is accepted: append these events (none, when it was already done: an idempotent repeat). */
export interface Accepted<Event> {
  readonly kind: 'accepted';
  readonly events: readonly Event[];
}

/** The command breaks a rule or is malformed; nothing is appended. */
export interface Rejected {
  readonly kind: 'rejected';
  readonly error: AgentLedgerError;
}

/**
 * What a decider answers to a command: `accepted` with the events to append,
 * or `rejected` with the typed error of the rule it breaks, plus any outcome
 * of its own a decider adds (`Other`: the run's `leaseLost`). A decider never
 * throws for a refused command; a throw is a bug in it.
 */
export type Decision<Event, Other extends { readonly kind: string } = never> = Accepted<Event> | Rejected | Other;

/** An accepted decision. */
export function accepted<Event>(...events: Event[]): Accepted<Event> {
  return { kind: 'accepted', events };
}

/** A rejected decision. */
export function rejected(error: AgentLedgerError): Rejected {
  return { kind: 'rejected', error };
}

/** Whether a decision accepts its command. */
export function isAccepted<Event>(decision: { readonly kind: string }): decision is Accepted<Event> {
  return decision.kind === 'accepted';
}

/** Whether a decision refuses its command. */
export function isRejected(decision: { readonly kind: string }): decision is Rejected {
  return decision.kind === 'rejected';
}
