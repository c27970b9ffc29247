/**
 * The error body of a ledger's refusal or failure, as the HTTP API answers
 * it: `code` (`RUN_NOT_FOUND`, `INVALID_FIELD`, `SCOPE_MISSING`...),
 * `message`, and the error's further fields (`field`, `rule`, `runId`...).
 */
export interface LedgerErrorBody {
  readonly code: string;
  readonly message: string;
  readonly [detail: string]: unknown;
}

/**
 * A {@link LedgerOperations} call the ledger refused or could not carry out,
 * with the body the HTTP API answers for it. The MCP tools answer it as an
 * `isError` result naming its `code`.
 */
export class LedgerOperationError extends Error {
  /** The body's `code`. */
  readonly code: string;

  constructor(readonly body: LedgerErrorBody) {
    super(body.message);
    this.name = 'LedgerOperationError';
    this.code = body.code;
  }
}
