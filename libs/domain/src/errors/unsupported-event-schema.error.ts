import { AgentLedgerError } from './agent-ledger-error';

/**
 * A stored event names a schema version this version of agent-ledger cannot
 * read: newer than the current one (written by a newer version), or not a
 * version at all. Reading on would misread the event, so it stops here.
 */
export class UnsupportedEventSchemaError extends AgentLedgerError {
  readonly code = 'UNSUPPORTED_EVENT_SCHEMA' as const;
  readonly failureClass = 'unknown' as const;

  constructor(
    readonly eventType: string,
    readonly schemaVersion: unknown,
    readonly currentVersion: number,
  ) {
    super(`The stored ${eventType} has schema version ${JSON.stringify(schemaVersion)}; this version reads versions 1 to ${currentVersion}`);
  }
}
