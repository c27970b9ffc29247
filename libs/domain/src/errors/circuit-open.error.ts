import { AgentLedgerError } from './agent-ledger-error';

/** A call was refused without being tried because a circuit breaker is open. */
export class CircuitOpenError extends AgentLedgerError {
  readonly code = 'CIRCUIT_OPEN' as const;
  readonly failureClass = 'circuitOpen' as const;

  constructor(readonly target: string) {
    super(`The circuit to ${target} is open`);
  }
}
