import { AgentLedgerError, isWrite } from '@agent-ledger/domain';
import type { ToolEffect } from '@agent-ledger/domain';
import { ToolAbortedError } from '@agent-ledger/runtime';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpConnectionError, McpHttpError, McpOutcomeUnknownError, McpTimeoutError, McpToolError } from './mcp-errors';

/** The call an error came from, as {@link mapMcpCallError} needs it. */
export interface McpCallSite {
  /** The agent-ledger name of the tool (`<server>.<tool>`). */
  readonly toolName: string;
  /** The binding's server name. */
  readonly server: string;
  /** The tool's resolved effect: an aborted write's outcome is unknown. */
  readonly effect: ToolEffect;
  /** The call's signal: when it fired, it, not the SDK's error, says why the call stopped. */
  readonly signal: AbortSignal;
}

/**
 * What a failed MCP call throws to the runtime, from what the SDK threw
 * (brief §1.10). The SDK's errors classify as `unknown` through the
 * repository's classifier, so each case is mapped here:
 *
 * - the call's signal fired (the SDK sent `notifications/cancelled` and
 *   rejected with `-32001`, which cannot tell a timeout from a cancel): a
 *   write gives {@link McpOutcomeUnknownError} (`connection` for the deadline,
 *   `unknown` for a cancel or a lost lease); a read gives
 *   {@link McpTimeoutError} for the deadline, the runtime's
 *   `ToolAbortedError` (the signal's reason as its cause) otherwise;
 * - `-32000` (the connection closed mid-call): {@link McpConnectionError};
 * - `-32001` without our signal (the SDK's own timeout): as the deadline;
 * - `-32602`, `-32601`, `-32603` and other JSON-RPC errors: {@link McpToolError};
 * - an HTTP status: {@link McpHttpError} (a 404 on the session is handled by
 *   the connection before it gets here: `MCP_SESSION_EXPIRED`);
 * - `Not connected`: {@link McpConnectionError} `MCP_SERVER_UNAVAILABLE`;
 * - anything else as it is (`fetch failed` already classifies as `connection`).
 */
export function mapMcpCallError(error: unknown, call: McpCallSite): unknown {
  if (error instanceof AgentLedgerError) return error;
  const write = isWrite(call.effect);
  if (call.signal.aborted) return aborted(call, write, error);
  if (error instanceof McpError) {
    const detail = error.message;
    switch (error.code) {
      case ErrorCode.ConnectionClosed:
        return new McpConnectionError(
          call.server,
          'MCP_CONNECTION_CLOSED',
          `MCP server ${call.server} closed the connection during the call of ${call.toolName}${write ? ' (the write may have been applied: its outcome is unknown)' : ''}`,
          { cause: error },
        );
      case ErrorCode.RequestTimeout:
        return timedOut(call, write, error);
      case ErrorCode.InvalidParams:
        return /structured content/i.test(detail)
          ? new McpToolError(call.toolName, 'MCP_OUTPUT_INVALID', `${call.toolName}: ${detail}`, { cause: error })
          : new McpToolError(call.toolName, 'MCP_INVALID_ARGUMENTS', `${call.toolName}: ${detail}`, { cause: error });
      case ErrorCode.MethodNotFound:
        return new McpToolError(call.toolName, 'MCP_METHOD_NOT_FOUND', `${call.toolName}: ${detail}`, { cause: error });
      default:
        if (/output schema/i.test(detail)) return new McpToolError(call.toolName, 'MCP_OUTPUT_INVALID', `${call.toolName}: ${detail}`, { cause: error });
        return new McpToolError(call.toolName, 'MCP_SERVER_ERROR', `${call.toolName}: ${detail}`, { cause: error });
    }
  }
  if (error instanceof StreamableHTTPError) return httpError(call.server, error);
  if (error instanceof Error && error.message === 'Not connected') {
    return new McpConnectionError(call.server, 'MCP_SERVER_UNAVAILABLE', `MCP server ${call.server} is not connected`, { cause: error });
  }
  return error;
}

/** An HTTP error of the SDK's Streamable HTTP transport: by its status, or `connection` when it has none. */
export function httpError(server: string, error: StreamableHTTPError): AgentLedgerError {
  const status = error.code;
  if (status !== undefined && status >= 400 && status <= 599) {
    return new McpHttpError(server, status, `MCP server ${server} answered HTTP ${status}: ${error.message}`, { cause: error });
  }
  return new McpConnectionError(server, 'MCP_CONNECTION_CLOSED', `MCP server ${server}: ${error.message}`, { cause: error });
}

function aborted(call: McpCallSite, write: boolean, error: unknown): AgentLedgerError {
  const reason: unknown = call.signal.reason;
  if (isTimeout(reason)) return timedOut(call, write, reason);
  if (write) {
    return new McpOutcomeUnknownError(
      call.toolName,
      'unknown',
      `${call.toolName} was stopped (${describe(reason)}); the server was sent notifications/cancelled, but it may have applied the write: its outcome is unknown`,
      { cause: reason ?? error },
    );
  }
  return new ToolAbortedError(call.toolName, { cause: reason });
}

function timedOut(call: McpCallSite, write: boolean, cause: unknown): AgentLedgerError {
  if (write) {
    return new McpOutcomeUnknownError(
      call.toolName,
      'connection',
      `${call.toolName}: the operation deadline passed before MCP server ${call.server} answered; it was sent notifications/cancelled, but it may have applied the write: its outcome is unknown`,
      { cause },
    );
  }
  return new McpTimeoutError(call.toolName, `${call.toolName}: the operation deadline passed before MCP server ${call.server} answered (it was sent notifications/cancelled)`, { cause });
}

function isTimeout(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}

function describe(reason: unknown): string {
  if (reason instanceof Error && reason.message !== '') return reason.message;
  return typeof reason === 'string' && reason !== '' ? reason : 'its signal fired';
}
