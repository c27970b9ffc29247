import { AgentLedgerError, classifyHttpStatus } from '@agent-ledger/domain';
import type { FailureClass } from '@agent-ledger/domain';

/** The longest message of an {@link McpToolError}: the text of an error result, cut beyond it. */
export const MCP_ERROR_MESSAGE_LIMIT = 4_000;

/** The codes of {@link McpToolError}. */
export type McpToolErrorCode = 'MCP_TOOL_ERROR' | 'MCP_INVALID_ARGUMENTS' | 'MCP_METHOD_NOT_FOUND' | 'MCP_SERVER_ERROR' | 'MCP_OUTPUT_INVALID' | 'MCP_RESULT_TOO_LARGE';

/**
 * The server answered the call, and the answer is a failure: an `isError`
 * result (`MCP_TOOL_ERROR`, its text as the message: `clientError`, the same
 * call fails the same way), or a JSON-RPC error: arguments refused
 * (`MCP_INVALID_ARGUMENTS`, `clientError`), no such method
 * (`MCP_METHOD_NOT_FOUND`, `configuration`), the server's internal error
 * (`MCP_SERVER_ERROR`, `serverError`), a structured result that does not
 * match the tool's output schema (`MCP_OUTPUT_INVALID`, `serverError`), a
 * result larger than the binding's `maxResultBytes` (`MCP_RESULT_TOO_LARGE`,
 * `clientError`: the same call gives the same result; nothing of it is
 * recorded).
 */
export class McpToolError extends AgentLedgerError {
  readonly failureClass: FailureClass;

  constructor(
    /** The agent-ledger name of the tool (`<server>.<tool>`). */
    readonly toolName: string,
    readonly code: McpToolErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(capMessage(message), options);
    this.failureClass = MCP_TOOL_ERROR_CLASSES[code];
  }
}

const MCP_TOOL_ERROR_CLASSES: Readonly<Record<McpToolErrorCode, FailureClass>> = {
  MCP_TOOL_ERROR: 'clientError',
  MCP_INVALID_ARGUMENTS: 'clientError',
  MCP_METHOD_NOT_FOUND: 'configuration',
  MCP_SERVER_ERROR: 'serverError',
  MCP_OUTPUT_INVALID: 'serverError',
  MCP_RESULT_TOO_LARGE: 'clientError',
};

/** The codes of {@link McpConnectionError}. */
export type McpConnectionErrorCode = 'MCP_CONNECTION_CLOSED' | 'MCP_SERVER_UNAVAILABLE' | 'MCP_SESSION_EXPIRED';

/**
 * The server could not be reached for the call (`connection`): it exited or
 * the connection closed during the call (`MCP_CONNECTION_CLOSED`), it is down
 * or being started again (`MCP_SERVER_UNAVAILABLE`, the message names the
 * next attempt), or its HTTP session expired and a call that is not safe to
 * send twice was not sent again (`MCP_SESSION_EXPIRED`).
 */
export class McpConnectionError extends AgentLedgerError {
  readonly failureClass = 'connection' as const;

  constructor(
    /** The binding's server name. */
    readonly server: string,
    readonly code: McpConnectionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A read's operation deadline passed before the server answered
 * (`connection`). The server was sent `notifications/cancelled`.
 */
export class McpTimeoutError extends AgentLedgerError {
  readonly code = 'MCP_TIMEOUT' as const;
  readonly failureClass = 'connection' as const;

  constructor(
    readonly toolName: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A write was stopped before its server answered (its deadline passed:
 * `connection`; the run was cancelled or the segment lost its lease:
 * `unknown`, as the runtime's `ToolAbortedError`). The server was sent
 * `notifications/cancelled`, but it may have applied the write before it saw
 * it: the write's outcome is unknown.
 */
export class McpOutcomeUnknownError extends AgentLedgerError {
  readonly code = 'MCP_OUTCOME_UNKNOWN' as const;

  constructor(
    readonly toolName: string,
    readonly failureClass: 'connection' | 'unknown',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * An HTTP server answered with an error status: classified by it (`auth` for
 * 401 and 403, `rateLimit` for 429, `serverError` for 5xx, `clientError` for
 * another 4xx).
 */
export class McpHttpError extends AgentLedgerError {
  readonly code = 'MCP_HTTP_ERROR' as const;
  readonly failureClass: FailureClass;

  constructor(
    readonly server: string,
    /** The HTTP status. */
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.failureClass = classifyHttpStatus(status);
  }
}

/**
 * A bound tool disappeared from its server's list, or changed its input
 * schema, effect hints, output schema or task support, since the service
 * checked it at start (`configuration`): refused without calling the server,
 * until the service is started again and its binding checked.
 */
export class McpToolChangedError extends AgentLedgerError {
  readonly code = 'MCP_TOOL_CHANGED' as const;
  readonly failureClass = 'configuration' as const;

  constructor(
    readonly toolName: string,
    readonly server: string,
    /** What changed (`removed from the server's list`, `input schema changed`, ...). */
    readonly changes: readonly string[],
  ) {
    super(
      `MCP tool ${toolName} changed on server ${server} since the service started (${changes.join('; ')}): it is refused until the service is started again and its binding checked`,
    );
  }
}

/** `message`, cut at {@link MCP_ERROR_MESSAGE_LIMIT} characters. */
export function capMessage(message: string): string {
  return message.length <= MCP_ERROR_MESSAGE_LIMIT ? message : `${message.slice(0, MCP_ERROR_MESSAGE_LIMIT - 1)}…`;
}
