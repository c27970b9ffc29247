import { AgentLedgerError } from './agent-ledger-error';

/** The service or an agent is configured wrongly; retrying cannot help. */
export class ConfigurationError extends AgentLedgerError {
  readonly code = 'CONFIGURATION' as const;
  readonly failureClass = 'configuration' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
