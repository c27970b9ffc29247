import { AgentLedgerError } from '@agent-ledger/domain';

/** A file, or the file a write would leave, exceeds the workspace's `maxFileBytes` (`clientError`). Nothing was written. */
export class FileTooLargeError extends AgentLedgerError {
  readonly code = 'FILE_TOO_LARGE' as const;
  readonly failureClass = 'clientError' as const;

  constructor(
    readonly path: string,
    /** The size found or that would result (at least this many bytes). */
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`${JSON.stringify(path)} would be ${bytes} bytes, more than the limit of ${maxBytes} bytes`);
  }
}
