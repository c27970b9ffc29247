import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of a server that can freeze the network: while frozen,
 * nothing passes in either direction, not even a connection's end, and no
 * connection is reset (a partition, as opposed to a cut); what was sent is
 * held and delivered in order when it thaws (TCP retransmitting once the
 * partition heals). New connections are accepted but get no answer.
 */
export class FreezableProxy {
  private frozen = false;
  private readonly held: Array<() => void> = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** The loopback port the proxy listens on. */
    readonly port: number,
  ) {}

  /** Starts a proxy on a free loopback port, forwarding to `127.0.0.1:targetPort`. */
  static async start(targetPort: number): Promise<FreezableProxy> {
    let proxy: FreezableProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, targetPort));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    proxy = new FreezableProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  /** Stops forwarding (data and ends are held). */
  freeze(): void {
    this.frozen = true;
  }

  /** Delivers what was held, in order, and forwards again. */
  thaw(): void {
    this.frozen = false;
    for (const action of this.held.splice(0)) action();
  }

  /** Closes every connection and the listening socket. */
  async close(): Promise<void> {
    this.held.length = 0;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined); // the other side's close follows
      socket.on('close', () => this.sockets.delete(socket));
    }
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: Socket, to: Socket): void {
    const pass = (action: () => void): void => {
      if (this.frozen) this.held.push(action);
      else action();
    };
    from.on('data', (data: Buffer) => pass(() => !to.destroyed && to.write(data)));
    // end(), not destroy(): what was written before the end still reaches the other side.
    from.on('close', () => pass(() => !to.destroyed && to.end()));
  }
}
