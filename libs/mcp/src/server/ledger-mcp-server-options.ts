import type { LedgerOperations } from './ledger-operations';

/** The MCP server's name, in its `initialize` answer. */
export const LEDGER_MCP_SERVER_NAME = 'agent-ledger';

/** What the ledger's MCP server serves, and to whom. */
export interface LedgerMcpServerOptions {
  /** What the tools call: the ledger on behalf of one caller. */
  readonly operations: LedgerOperations;
  /** The caller's API key scopes: a tool none of whose scopes it holds is not listed, and a call of it is refused (`SCOPE_MISSING`). */
  readonly scopes: readonly string[];
  /** The caller's key id, named in a `SCOPE_MISSING` answer (null: authentication disabled). */
  readonly keyId: string | null;
  /** The version the server gives in its `initialize` answer. */
  readonly version: string;
  /** Told of an error that is not an answer of the ledger (a bug, for the host's log); the MCP client gets `INTERNAL_ERROR`. */
  readonly onFault?: (error: unknown, tool: string) => void;
}
