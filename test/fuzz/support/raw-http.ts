/**
 * A raw HTTP client on `node:http`, for requests no well-behaved client
 * sends: any method, any path bytes Node lets through, any header, any body
 * bytes, a `Content-Type` that lies. Server-Sent Events answers are not read:
 * the connection is closed as soon as the status and headers arrive.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent } from 'node:http';
import { scaled } from '../../support/time-scale';

/** A request as the fuzzer built it. */
export interface RawRequest {
  readonly method: string;
  /** The request target: path and query, sent as is. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Send the body with `Transfer-Encoding: chunked` (no `Content-Length`), in chunks of at most 7 bytes; an empty body is the last chunk alone. */
  readonly chunked?: boolean;
}

/** What came back. `body` is empty for an event stream (closed at once). */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Whether the answer was an event stream (`text/event-stream`). */
  readonly stream: boolean;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Sends `request` to `127.0.0.1:port` and reads the answer (an event stream: only its head). */
export function send(port: number, request: RawRequest, timeoutMs = 30_000): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined && request.chunked !== true) headers['content-length'] = request.body.length;
    if (request.chunked === true) headers['transfer-encoding'] = 'chunked';
    let req: ReturnType<typeof httpRequest>;
    try {
      // A large body may be refused before it is read: on a connection of its own, so that a kept-alive one is never left half-written.
      const large = request.body !== undefined && request.body.length > 65_536;
      req = httpRequest({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent: large ? false : agent });
    } catch (error) {
      reject(error);
      return;
    }
    const limitMs = scaled(timeoutMs);
    const timer = setTimeout(() => req.destroy(new Error(`No answer in ${limitMs} ms: ${request.method} ${request.path}`)), limitMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (response) => {
      const type = String(response.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        clearTimeout(timer);
        // An event stream never ends on its own: take the head, close the connection.
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '', stream: true });
        response.destroy();
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), stream: false });
      });
    });
    if (request.chunked === true && request.body !== undefined) {
      for (let at = 0; at < request.body.length; at += 7) req.write(request.body.subarray(at, at + 7));
      req.end();
    } else {
      req.end(request.body);
    }
  });
}

/** Closes the kept-alive connections. */
export function closeConnections(): void {
  agent.destroy();
}
