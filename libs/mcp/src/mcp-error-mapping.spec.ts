import { classifyFailure } from '@agent-ledger/domain';
import type { ToolEffect } from '@agent-ledger/domain';
import { ToolAbortedError } from '@agent-ledger/runtime';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { mapMcpCallError } from './mcp-error-mapping';
import { McpConnectionError, McpHttpError, McpOutcomeUnknownError, McpTimeoutError, McpToolError } from './mcp-errors';

const live = new AbortController().signal;
const site = (effect: ToolEffect, signal: AbortSignal = live) => ({ toolName: 'fs.write_file', server: 'fs', effect, signal });
const abortedWith = (reason: unknown) => {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
};
const timeout = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');
class RunCancelledSignal extends Error {
  constructor() {
    super('The run was cancelled');
    this.name = 'RunCancelledSignal';
  }
}

describe('mapMcpCallError', () => {
  it('maps the SDK’s JSON-RPC errors to codes and failure classes (which the classifier alone would call unknown)', () => {
    const cases: Array<[McpError, string, string]> = [
      [new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), 'MCP_CONNECTION_CLOSED', 'connection'],
      [new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 'MCP_TIMEOUT', 'connection'],
      [new McpError(ErrorCode.InvalidParams, 'Input validation error'), 'MCP_INVALID_ARGUMENTS', 'clientError'],
      [new McpError(ErrorCode.InvalidParams, "Structured content does not match the tool's output schema: x"), 'MCP_OUTPUT_INVALID', 'serverError'],
      [new McpError(ErrorCode.InvalidRequest, 'Tool t has an output schema but did not return structured content'), 'MCP_OUTPUT_INVALID', 'serverError'],
      [new McpError(ErrorCode.MethodNotFound, 'Method not found'), 'MCP_METHOD_NOT_FOUND', 'configuration'],
      [new McpError(ErrorCode.InternalError, 'boom'), 'MCP_SERVER_ERROR', 'serverError'],
    ];
    for (const [error, code, failureClass] of cases) {
      expect(classifyFailure(error)).toBe('unknown');
      const mapped = mapMcpCallError(error, site('READ_ONLY'));
      expect(mapped).toMatchObject({ code, failureClass });
      expect(classifyFailure(mapped)).toBe(failureClass);
      expect((mapped as Error).cause).toBe(error);
    }
  });

  it('maps HTTP statuses by the taxonomy’s HTTP rule', () => {
    const statuses: Array<[number, string]> = [
      [401, 'auth'],
      [403, 'auth'],
      [429, 'rateLimit'],
      [400, 'clientError'],
      [503, 'serverError'],
    ];
    for (const [status, failureClass] of statuses) {
      const mapped = mapMcpCallError(new StreamableHTTPError(status, `Error POSTing to endpoint (HTTP ${status})`), site('READ_ONLY'));
      expect(mapped).toBeInstanceOf(McpHttpError);
      expect(mapped).toMatchObject({ code: 'MCP_HTTP_ERROR', status, failureClass });
    }
    expect(mapMcpCallError(new StreamableHTTPError(undefined, 'stream ended'), site('READ_ONLY'))).toMatchObject({ failureClass: 'connection' });
  });

  it('maps a client that is not connected to MCP_SERVER_UNAVAILABLE, and leaves other errors (fetch failed) as they are', () => {
    expect(mapMcpCallError(new Error('Not connected'), site('READ_ONLY'))).toMatchObject({ code: 'MCP_SERVER_UNAVAILABLE', failureClass: 'connection' });
    const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(mapMcpCallError(fetchFailed, site('READ_ONLY'))).toBe(fetchFailed);
    expect(classifyFailure(fetchFailed)).toBe('connection');
  });

  it('tells a deadline from a cancel by the call’s signal, not by the SDK’s -32001', () => {
    const sdk = new McpError(ErrorCode.RequestTimeout, 'MCP error -32001: TimeoutError: ...');
    expect(mapMcpCallError(sdk, site('READ_ONLY', abortedWith(timeout())))).toBeInstanceOf(McpTimeoutError);
    const cancelled = new RunCancelledSignal();
    const read = mapMcpCallError(sdk, site('READ_ONLY', abortedWith(cancelled)));
    expect(read).toBeInstanceOf(ToolAbortedError);
    expect(read).toMatchObject({ code: 'TOOL_ABORTED', failureClass: 'unknown', message: 'Tool fs.write_file was aborted: The run was cancelled', cause: cancelled });
  });

  it('says an aborted write’s outcome is unknown (connection for the deadline, unknown for a cancel)', () => {
    const sdk = new McpError(ErrorCode.RequestTimeout, 'MCP error -32001: ...');
    for (const effect of ['IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE'] as const) {
      expect(mapMcpCallError(sdk, site(effect, abortedWith(timeout())))).toMatchObject({ code: 'MCP_OUTCOME_UNKNOWN', failureClass: 'connection' });
      const cancelled = mapMcpCallError(sdk, site(effect, abortedWith(new RunCancelledSignal())));
      expect(cancelled).toBeInstanceOf(McpOutcomeUnknownError);
      expect(cancelled).toMatchObject({ failureClass: 'unknown', message: expect.stringContaining('its outcome is unknown') });
    }
    expect(mapMcpCallError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), site('IDEMPOTENT_WRITE'))).toMatchObject({ code: 'MCP_OUTCOME_UNKNOWN' });
  });

  it('keeps an error of ours as it is', () => {
    const ours = new McpConnectionError('fs', 'MCP_SESSION_EXPIRED', 'expired');
    expect(mapMcpCallError(ours, site('READ_ONLY'))).toBe(ours);
  });

  it('caps an error result’s message', () => {
    expect(new McpToolError('t', 'MCP_TOOL_ERROR', 'x'.repeat(10_000)).message).toHaveLength(4_000);
  });
});
