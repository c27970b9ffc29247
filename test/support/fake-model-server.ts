/**
 * A real HTTP server on 127.0.0.1 (a free port) that stands in for a model
 * vendor's API in tests: it records every request (method, path, headers,
 * JSON body) and answers as the test says, in the vendor's documented
 * shapes (the tests write those bodies).
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server saw of one request. */
export interface RecordedRequest {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

/** Answers one request. */
export type FakeHandler = (req: IncomingMessage, res: ServerResponse, body: unknown) => void;

/** One scripted answer: a status, a JSON body, headers. */
export interface FakeReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export class FakeModelServer {
  readonly requests: RecordedRequest[] = [];
  private handler: FakeHandler = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('no handler');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // kept as text: the test sees what was sent
      }
      this.requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      this.handler(req, res, body);
    });
  });

  /** Listens on a free loopback port; returns `http://127.0.0.1:<port>`. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers every further request with `handler` (and forgets the requests seen so far). */
  answer(handler: FakeHandler): void {
    this.requests.length = 0;
    this.handler = handler;
  }

  /** Answers every further request with this status, JSON body and headers. */
  json(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
    this.answer((_req, res) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)));
  }

  /** Answers the next requests with `replies`, one each, in order; a request past them gets 500. */
  script(replies: readonly FakeReply[]): void {
    let next = 0;
    this.answer((_req, res) => {
      const reply = replies[next++];
      if (reply === undefined) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`the fake server has ${replies.length} scripted replies and was asked for a ${next}th`);
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
    });
  }

  /** Answers with `body` only after `ms`, or never if the server stops first. */
  slow(ms: number, body: unknown): void {
    this.answer((_req, res) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }, ms);
      this.timers.add(timer);
    });
  }

  /** The last request received. */
  get last(): RecordedRequest {
    const last = this.requests[this.requests.length - 1];
    if (last === undefined) throw new Error('no request was received');
    return last;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }
}

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
export async function closedPort(): Promise<number> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return port;
}

/** A Messages API reply in the documented shape (`stop_reason` from the content). */
export function anthropicMessage(content: readonly unknown[], stopReason = content.some((block) => (block as { type?: unknown }).type === 'tool_use') ? 'tool_use' : 'end_turn'): unknown {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 6 },
  };
}

/** An Anthropic error body in the documented shape: `{"type":"error","error":{"type","message"}}`. */
export function anthropicError(type: string, message: string): unknown {
  return { type: 'error', error: { type, message } };
}

/** A chat-completions reply in the documented shape, with one message. */
export function chatCompletion(message: unknown, finishReason = 'stop'): unknown {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'test', choices: [{ index: 0, message, finish_reason: finishReason }] };
}
