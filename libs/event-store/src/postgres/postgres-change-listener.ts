import { pg } from './pg-library';
import type { Client, ClientConfig } from 'pg';
import { registerListenerSql } from './postgres-schema';

/** Where a {@link PostgresChangeListener} registers itself: the store's schema, its id there, and the schema made ready first. */
export interface ListenerRegistration {
  readonly schema: string;
  /** The store's listener id (a UUID), which its own writes name so as not to notify it. */
  readonly id: string;
  /** Creates or migrates the schema (the listeners' table is part of it). */
  readonly ready: () => Promise<void>;
  readonly now: () => number;
}

/**
 * Wakes live subscriptions on other stores' commits: one connection
 * (outside the pool) that LISTENs on the store's channel and then registers
 * in the schema's `listeners` table; a write transaction NOTIFYs (delivered
 * at commit) when a store other than its own is registered there. Its own
 * store's commits wake its subscriptions in-process. While subscriptions wait, a slow
 * fallback tick wakes them too, so a notification lost with a dropped
 * listening connection delays them by one interval at most, never for good.
 * A lost listening connection is reconnected (with a back-off) while the
 * store is open; each (re)connection wakes the subscriptions once, after its
 * registration committed. The registration is deleted at close; a process
 * that dies leaves it behind until the next registration on the schema
 * deletes it (meanwhile writers notify for nothing, which is harmless).
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
    private readonly registration: ListenerRegistration,
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
    if (client === undefined) return;
    await client
      .query(`DELETE FROM ${this.registration.schema}.listeners WHERE id = '${this.registration.id}'`)
      .catch((error: unknown) => (this.lastError = error)); // left behind, it costs other writers notifications, nothing else
    await client.end().catch((error: unknown) => (this.lastError = error));
  }

  private connect(): void {
    const client = new (pg().Client)(this.config);
    client.on('notification', (message) => this.onChange(message.payload === undefined ? undefined : Number(message.payload)));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    this.connecting = (async () => {
      try {
        await this.registration.ready();
        await client.connect();
        // LISTEN first, committed on its own: a write that sees the registration notifies a connection already listening.
        await client.query(`LISTEN "${this.channel}"`);
        await client.query(registerListenerSql(this.registration.schema, this.registration.id, this.registration.now()));
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
