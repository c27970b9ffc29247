import { AgentLedgerError } from '@agent-ledger/domain';

/** File-system error codes that mean the workspace is set up wrongly (permissions, read-only mount). */
const CONFIGURATION_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * The file system failed a file tool's operation for a reason other than the
 * request: `configuration` for a permission problem, otherwise `unknown`
 * (never retried blindly: a write may have been partly done).
 */
export class WorkspaceIoError extends AgentLedgerError {
  readonly code = 'WORKSPACE_IO' as const;
  readonly failureClass: 'configuration' | 'unknown';

  constructor(
    readonly path: string,
    readonly operation: string,
    /** Node's error code, e.g. `ENOSPC`; `undefined` when there was none. */
    readonly systemCode: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`Could not ${operation} ${JSON.stringify(path)}${systemCode === undefined ? '' : ` (${systemCode})`}`, options);
    this.failureClass = systemCode !== undefined && CONFIGURATION_CODES.has(systemCode) ? 'configuration' : 'unknown';
  }
}
