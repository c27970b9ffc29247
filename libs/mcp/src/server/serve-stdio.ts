import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { LedgerMcpServerOptions } from './ledger-mcp-server-options';
import { createLedgerMcpServer } from './ledger-mcp-server';

/** Where {@link serveLedgerMcpStdio} reads and writes. */
export interface LedgerMcpStdioOptions extends LedgerMcpServerOptions {
  /** The MCP client's messages. @default process.stdin */
  readonly input?: Readable;
  /** The server's messages, and nothing else. @default process.stdout */
  readonly output?: Writable;
  /** Told of a protocol error (a line that is not JSON-RPC, a write that failed). */
  readonly onError?: (error: Error) => void;
  /** Stops serving as the end of the input does (SIGTERM, Ctrl-C). */
  readonly signal?: AbortSignal;
}

/**
 * Serves the ledger's MCP tools over stdio (newline-delimited JSON-RPC) to
 * one MCP client, until its input ends (or `signal` is aborted); then
 * answers the calls still in flight and resolves. Nothing but the protocol is written to `output`.
 */
export async function serveLedgerMcpStdio(options: LedgerMcpStdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const onError = options.onError ?? (() => undefined);
  const { server, idle } = createLedgerMcpServer(options);
  // A client gone before an answer is written (EPIPE) is not a crash of the server.
  const onOutputError = (error: Error): void => onError(error);
  output.on('error', onOutputError);
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
    if (options.signal?.aborted === true) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  server.server.onerror = onError;
  try {
    await server.connect(new StdioServerTransport(input, output));
    await ended;
    await idle();
    // The SDK writes an answer a few promise callbacks after its handler settles, and closing aborts what it has not
    // written yet: one turn of the event loop lets every answer of the settled calls reach `output` first.
    await new Promise<void>((resolve) => setImmediate(resolve));
  } finally {
    await server.close();
    output.off('error', onOutputError);
  }
}
