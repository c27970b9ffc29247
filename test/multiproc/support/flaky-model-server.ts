/**
 * An OpenAI-compatible chat-completions server for the `flaky` agent: the
 * first call of each run answers 503 (a retryable server error: the segment
 * fails, the run is requeued with back-off and claimed again), the next one
 * asks for `ledger.put`, and once the tool's result is in the conversation it
 * gives the final answer.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The server, its base URL (`.../v1`) and what it answered. */
export interface FlakyModelServer {
  readonly baseUrl: string;
  /** 503s answered, one per run at most. */
  readonly refused: () => number;
  close(): Promise<void>;
}

interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
}

function reply(message: unknown): string {
  return JSON.stringify({ id: 'chatcmpl-flaky', object: 'chat.completion', created: 1, model: 'flaky', choices: [{ index: 0, message, finish_reason: 'stop' }] });
}

/** Starts the server on a free loopback port. */
export async function startFlakyModelServer(): Promise<FlakyModelServer> {
  const refusedOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let messages: ChatMessage[];
      try {
        messages = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: ChatMessage[] }).messages;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"not a chat completion request"}}');
        return;
      }
      const user = JSON.stringify(messages.find((m) => m.role === 'user')?.content ?? '');
      const json = { 'content-type': 'application/json' };
      if (messages.some((m) => m.role === 'tool')) {
        res.writeHead(200, json).end(reply({ role: 'assistant', content: 'put after a retry' }));
      } else if (!refusedOnce.has(user)) {
        refusedOnce.add(user);
        res.writeHead(503, json).end('{"error":{"message":"overloaded, try again","type":"server_error"}}');
      } else {
        const call = { id: 'call_put', type: 'function', function: { name: 'ledger__put', arguments: '{"value":"f0","holdMs":20}' } };
        res.writeHead(200, json).end(reply({ role: 'assistant', content: null, tool_calls: [call] }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    refused: () => refusedOnce.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
