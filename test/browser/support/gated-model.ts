/**
 * An OpenAI-compatible chat-completions server that holds every request while
 * its gate is closed (it starts closed), until the test opens it: a run whose model it serves stays `RUNNING` (in a
 * model step) until then, so a browser can be shown the run BEFORE it
 * completes, and see it complete live.
 *
 * Once open, a request without a tool result answers one call of the first
 * tool offered (`arguments` below); a request with a tool result answers a
 * final message. A run of an agent offered `files.write` (pre-approved) thus
 * writes one file and completes.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scaled } from '../../support/time-scale';

export interface GatedModelServer {
  /** The provider's `baseUrl`. */
  readonly baseUrl: string;
  /** Requests received so far (held or answered). */
  received(): number;
  /** Resolves once `count` requests have been received. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Answers the held requests, and every later one at once. */
  open(): void;
  /** Closes the gate again: later requests are held until the next {@link open}. */
  hold(): void;
  close(): Promise<void>;
}

interface WireRequest {
  readonly messages: ReadonlyArray<{ readonly role: string }>;
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>;
}

export async function startGatedModelServer(toolArguments: Readonly<Record<string, unknown>>): Promise<GatedModelServer> {
  let received = 0;
  let opened = false;
  const held: Array<() => void> = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const answer = (body: WireRequest, res: ServerResponse) => {
    const toolResult = body.messages.some((m) => m.role === 'tool');
    const firstTool = body.tools?.[0]?.function.name;
    const message =
      toolResult || firstTool === undefined
        ? { role: 'assistant', content: 'Written, as asked.' }
        : { role: 'assistant', content: null, tool_calls: [{ id: `call-${received}`, type: 'function', function: { name: firstTool, arguments: JSON.stringify(toolArguments) } }] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: `chatcmpl-${received}`, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: toolResult ? 'stop' : 'tool_calls' }] }));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      received += 1;
      for (const waiter of waiters.filter((w) => received >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const body = JSON.parse(text) as WireRequest;
      if (opened) answer(body, res);
      else held.push(() => answer(body, res));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received: () => received,
    waitForRequests: (count, timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        if (received >= count) return resolve();
        const limitMs = scaled(timeoutMs);
        const timer = setTimeout(() => reject(new Error(`The model server received ${received} of ${count} requests in ${limitMs} ms`)), limitMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    open: () => {
      opened = true;
      for (const release of held.splice(0)) release();
    },
    hold: () => {
      opened = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
