import type { Readable, Writable } from 'node:stream';
import type { AgentLedgerClient } from '@agent-ledger/client';
import { serveLedgerMcpStdio } from '@agent-ledger/mcp';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';

/** Where `agent-ledger mcp` speaks MCP (tests give streams of their own). */
export interface McpStdio {
  readonly input: Readable;
  readonly output: Writable;
}

/**
 * `agent-ledger mcp`: the ledger's MCP tools over stdio, for an MCP client
 * (an IDE, a desktop assistant) that starts it, each tool a request of the
 * service's HTTP API through `client`, with the API key of the environment.
 * First `GET /me` (the service unreachable: the client's error, exit 3; the
 * key refused: exit 4): its scopes decide which tools are listed. Standard
 * output carries the protocol and nothing else; what the verb has to say goes
 * to standard error. Resolves with exit 0 once the client closes standard
 * input (or `signal` stops it), its calls in flight answered.
 */
export async function mcpServe(client: AgentLedgerClient, baseUrl: string, version: string, output: CliOutput, signal: AbortSignal, stdio?: McpStdio): Promise<ExitCode> {
  const me = await client.me();
  const who = me.keyId === null ? 'authentication disabled (development)' : `API key "${me.keyId}"`;
  output.err(`agent-ledger mcp: the ledger at ${baseUrl} as an MCP server on stdio, ${who}, scopes ${me.scopes.join(', ')}`);
  await serveLedgerMcpStdio({
    operations: client,
    scopes: me.scopes,
    keyId: me.keyId,
    version,
    signal,
    ...(stdio === undefined ? {} : { input: stdio.input, output: stdio.output }),
    onFault: (error, tool) => output.err(`agent-ledger mcp: ${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    onError: (error) => output.err(`agent-ledger mcp: ${error.message}`),
  });
  return ExitCode.OK;
}
