import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { LedgerMcpServerOptions } from './ledger-mcp-server-options';
import { createLedgerMcpServer } from './ledger-mcp-server';

/** One HTTP request to the ledger's MCP endpoint. */
export interface LedgerMcpHttpRequest extends LedgerMcpServerOptions {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The request's body, parsed already (the service's JSON parser reads it). */
  readonly body: unknown;
}

/**
 * Answers one `POST` of MCP's Streamable HTTP transport, stateless: a server
 * and a transport for this request only (no session id; every request
 * carries its own credentials), the answer as one JSON body
 * (`enableJsonResponse`), not an SSE stream. `GET` and `DELETE` (a session's
 * stream, its end) have no meaning without sessions: the host answers them
 * 405.
 */
export async function handleLedgerMcpHttpRequest(options: LedgerMcpHttpRequest): Promise<void> {
  const { request, response, body } = options;
  const { server } = createLedgerMcpServer(options);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
