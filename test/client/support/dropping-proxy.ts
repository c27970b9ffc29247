import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy forwarded. */
export interface ProxiedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Bytes of the answer's body forwarded; `cut` when the proxy dropped the connection. */
  bytes: number;
  cut: boolean;
  /** Whether the client's side of the connection is closed (by the client, or by a cut). */
  closed: boolean;
  /** Whether the upstream answer's head was forwarded (the stream is open). */
  answered: boolean;
}

/** A proxy in front of the service that drops event-stream connections mid-stream. */
export interface DroppingProxy {
  readonly baseUrl: string;
  readonly requests: readonly ProxiedRequest[];
  /** Resolves once a forwarded request whose path starts with `pathPrefix` has its answer's head forwarded. */
  answered(pathPrefix: string): Promise<ProxiedRequest>;
  close(): Promise<void>;
}

/** Options of {@link startDroppingProxy}. */
export interface DroppingProxyOptions {
  /**
   * A path prefix the client requests (through the proxy) each time it has
   * read an event. With it, a stream that reached its cut with at least one
   * whole frame forwarded is held there, and cut only when such a request
   * arrives: a browser discards the bytes it has not read yet when the
   * connection resets, so without this all cuts may land before the page
   * reads a single event, and no reconnection would have an id to resume from.
   */
  readonly cutWhenRequested?: string;
}

/**
 * An HTTP proxy to `target` that forwards every request; the answer of the
 * n-th event-stream request (`text/event-stream`) is cut after
 * `cutAfterBytes[n]` bytes of its body: the socket is destroyed there,
 * usually in the middle of a frame, as a dropped connection would. Later
 * event-stream requests pass through whole.
 */
export async function startDroppingProxy(target: string, cutAfterBytes: readonly number[], options: DroppingProxyOptions = {}): Promise<DroppingProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  const waiters: Array<{ prefix: string; resolve: (request: ProxiedRequest) => void }> = [];
  let streams = 0;
  /** Cuts of streams held until the client says it read an event (see `cutWhenRequested`). */
  const heldCuts: Array<() => void> = [];
  const notify = (proxied: ProxiedRequest): void => {
    for (const waiter of [...waiters]) {
      if (proxied.path.startsWith(waiter.prefix)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(proxied);
      }
    }
  };
  const server: Server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (options.cutWhenRequested !== undefined && (incoming.url ?? '').startsWith(options.cutWhenRequested)) {
      for (const cut of heldCuts.splice(0)) cut();
    }
    const proxied: ProxiedRequest = { path: incoming.url ?? '/', headers: incoming.headers, bytes: 0, cut: false, closed: false, answered: false };
    requests.push(proxied);
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } },
      (answer) => {
        const isStream = (answer.headers['content-type'] ?? '').startsWith('text/event-stream');
        const limit = isStream ? cutAfterBytes[streams++] : undefined;
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        outgoing.flushHeaders();
        proxied.answered = true;
        notify(proxied);
        let forwarded = '';
        const cut = (): void => {
          // The write is flushed before the socket goes: the client gets the bytes, then a reset.
          outgoing.socket?.end(() => outgoing.socket?.destroy());
          answer.destroy();
        };
        answer.on('data', (chunk: Buffer) => {
          if (proxied.cut) return;
          if (limit !== undefined && proxied.bytes + chunk.length >= limit) {
            const part = chunk.subarray(0, limit - proxied.bytes);
            outgoing.write(part);
            forwarded += part.toString('utf8');
            proxied.bytes = limit;
            proxied.cut = true;
            const wholeFrames = forwarded.split('\n\n').length - 1;
            if (options.cutWhenRequested !== undefined && wholeFrames > 0) {
              answer.pause();
              heldCuts.push(cut);
            } else {
              cut();
            }
            return;
          }
          proxied.bytes += chunk.length;
          if (limit !== undefined) forwarded += chunk.toString('utf8');
          outgoing.write(chunk);
        });
        answer.on('end', () => outgoing.end());
      },
    );
    forward.on('error', () => outgoing.destroy());
    outgoing.on('close', () => {
      proxied.closed = true;
      forward.destroy();
    });
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    answered(pathPrefix) {
      const done = requests.find((proxied) => proxied.answered && proxied.path.startsWith(pathPrefix));
      if (done !== undefined) return Promise.resolve(done);
      return new Promise((resolve) => waiters.push({ prefix: pathPrefix, resolve }));
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
