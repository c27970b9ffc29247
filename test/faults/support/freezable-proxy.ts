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
  private readonly server: Server;
  private listeningOn = 0;
  private freezeAfterText: Buffer | undefined;

  private constructor(private readonly targetPort: number) {
    this.server = createServer((client) => this.accept(client));
  }

  /** Starts a proxy on a free loopback port, forwarding to `127.0.0.1:targetPort`. */
  static async start(targetPort: number): Promise<FreezableProxy> {
    const proxy = new FreezableProxy(targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', resolve);
    });
    proxy.listeningOn = (proxy.server.address() as { port: number }).port;
    return proxy;
  }

  /** The loopback port the proxy listens on. */
  get port(): number {
    return this.listeningOn;
  }

  /** Stops forwarding (data and ends are held). */
  freeze(): void {
    this.frozen = true;
  }

  /**
   * Freezes the network just after the next client message that contains
   * `text` has passed to the server: the server gets it (a `COMMIT`, say),
   * its answer is held.
   */
  freezeAfter(text: string): void {
    this.freezeAfterText = Buffer.from(text);
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

  private accept(client: Socket): void {
    const upstream = connect(this.targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined); // the other side's close follows
      socket.on('close', () => this.sockets.delete(socket));
    }
    this.forward(client, upstream, true);
    this.forward(upstream, client, false);
  }

  private forward(from: Socket, to: Socket, fromClient: boolean): void {
    const pass = (action: () => void): void => {
      if (this.frozen) this.held.push(action);
      else action();
    };
    from.on('data', (data: Buffer) => {
      pass(() => !to.destroyed && to.write(data));
      if (fromClient && !this.frozen && this.freezeAfterText !== undefined && data.includes(this.freezeAfterText)) {
        this.freezeAfterText = undefined;
        this.frozen = true;
      }
    });
    // end(), not destroy(): what was written before the end still reaches the other side.
    from.on('close', () => pass(() => !to.destroyed && to.end()));
  }
}
