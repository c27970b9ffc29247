import { pg } from './pg-library';
import type { Client, ClientConfig } from 'pg';

/**
 * Wakes live subscriptions on other connections' commits: one connection
 * (outside the pool) that LISTENs on the store's channel, which every write
 * transaction NOTIFYs (delivered at commit). While subscriptions wait, a slow
 * fallback tick wakes them too, so a notification lost with a dropped
 * listening connection delays them by one interval at most, never for good.
 * A lost listening connection is reconnected (with a back-off) while the
 * store is open; each (re)connection wakes the subscriptions once.
 * `onChange` gets the notification's payload (the log head the commit left)
 * when it comes from a notification, nothing for the other wake-ups.
 */
export class PostgresChangeListener {
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private tick: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private failures = 0;
  /** The last error of the listening connection, for diagnostics (subscriptions meet the store's errors on their own reads). */
  lastError: unknown;

  constructor(
    private readonly config: ClientConfig,
    private readonly channel: string,
    private readonly onChange: (head?: number) => void,
    private readonly fallbackMs: number,
  ) {}

  /** Called with `true` when a subscription starts waiting, `false` when none waits. */
  waiting(waiting: boolean): void {
    if (this.closed) return;
    if (waiting) {
      if (!this.client && !this.connecting) this.connect();
      this.tick ??= setInterval(() => this.onChange(), this.fallbackMs);
      this.tick.unref();
    } else if (this.tick) {
      clearInterval(this.tick);
      this.tick = undefined;
    }
  }

  /** Stops listening and releases the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.tick) clearInterval(this.tick);
    if (this.retry) clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch((error: unknown) => (this.lastError = error));
  }

  private connect(): void {
    const client = new (pg().Client)(this.config);
    client.on('notification', (message) => this.onChange(message.payload === undefined ? undefined : Number(message.payload)));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    this.connecting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
        if (this.closed) {
          await client.end();
          return;
        }
        this.client = client;
        this.failures = 0;
        this.onChange(); // what was committed while nobody listened
      } catch (error) {
        this.lost(client, error);
      } finally {
        this.connecting = undefined;
      }
    })();
  }

  private lost(client: Client, error: unknown): void {
    this.lastError = error;
    if (this.client === client) this.client = undefined;
    client.removeAllListeners('end');
    client.on('error', () => undefined); // the client is abandoned: its later errors are the same loss
    void client.end().catch(() => undefined);
    if (this.closed || this.retry) return;
    this.failures++;
    const delay = Math.min(this.fallbackMs, 50 * 2 ** Math.min(this.failures, 6));
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed && !this.client && !this.connecting) this.connect();
    }, delay);
    this.retry.unref();
    this.onChange();
  }
}
