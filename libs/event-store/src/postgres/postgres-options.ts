/**
 * TLS settings passed through to node-postgres as they are (`ssl` of its
 * client configuration): `true` for TLS with the system's trusted
 * certificates, or an object of Node's `tls.connect` options.
 */
export interface PostgresTlsOptions {
  /** Reject a server certificate that the CAs do not vouch for. @default true */
  readonly rejectUnauthorized?: boolean;
  /** PEM CA certificates to trust instead of the system's. */
  readonly ca?: string | readonly string[];
  /** PEM client certificate (client-certificate authentication). */
  readonly cert?: string;
  /** PEM private key of the client certificate. */
  readonly key?: string;
  /** The server name checked against the certificate (SNI). */
  readonly servername?: string;
}

/** Options of `PostgresEventStore.connect` / `PostgresEventStore.open`. */
export interface PostgresEventStoreOptions {
  /** A libpq-style connection string, e.g. `postgresql://user:password@host:5432/database`. Required. */
  readonly connectionString: string;
  /**
   * The schema holding the store's tables, created on start if missing. A
   * lower-case SQL identifier (`[a-z_][a-z0-9_]*`, at most 63 characters):
   * several stores may share one database under different schemas.
   * @default 'agent_ledger'
   */
  readonly schema?: string;
  /**
   * Most connections of the pool (appends, reads, subscription pages). One
   * more connection per store listens for notifications.
   * @default 10
   */
  readonly poolSize?: number;
  /** TLS, passed through to node-postgres; omitted: as the connection string says (`sslmode`). */
  readonly tls?: boolean | PostgresTlsOptions;
  /**
   * How long to wait for a connection (new or from the pool) before the call
   * fails with `StoreUnavailableError` (`connectionLost`), in ms.
   * @default 5000
   */
  readonly connectionTimeoutMs?: number;
  /**
   * How long one statement may wait for the server's answer before the call
   * fails with `StoreUnavailableError` (`connectionLost`, retryable; its
   * connection is dropped), in ms. It bounds a call on a connection that is
   * neither answered nor reset (a network partition, a frozen server), which
   * would otherwise wait for ever. An append that times out may have been
   * written (as when the connection is lost during its commit): repeating it
   * with the same event ids is idempotent.
   * @default 30000
   */
  readonly queryTimeoutMs?: number;
  /**
   * Live subscriptions are woken by LISTEN/NOTIFY; while one waits, they also
   * re-read at this interval, in case a notification was lost with the
   * listening connection. In ms.
   * @default 1000
   */
  readonly fallbackPollIntervalMs?: number;
  /**
   * How long a subscription keeps retrying its reads after losing the
   * connection (a server restart) before ending with `StoreUnavailableError`,
   * in ms. Other calls fail at once (`StoreUnavailableError`, `connectionLost`, retryable).
   * @default 30000
   */
  readonly reconnectTimeoutMs?: number;
  /**
   * Group commit: the writes (appends, deletes, tombstones) made while this
   * store's previous write transaction runs wait for it, then share the next
   * transaction (one lock of the log head, one statement writing every event,
   * one commit and its WAL flush). Each write is still decided on its own: a
   * refused one (a conflict, a deleted stream) fails alone. Writes to one
   * stream go to successive transactions, in the order they were made.
   * `false`: each write is its own transaction, run at once.
   * @default true
   */
  readonly groupCommit?: boolean;
  /**
   * Most writes in one group-commit transaction (a positive integer).
   * @default 256
   */
  readonly maxBatchSize?: number;
  /**
   * The clock stamping `created`.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** The schema used when `schema` is not given. */
export const DEFAULT_POSTGRES_SCHEMA = 'agent_ledger';

/**
 * Whether `name` may be the store's schema: a lower-case SQL identifier
 * (`[a-z_][a-z0-9_]*`, at most 63 characters), which the adapter writes
 * into its statements unquoted.
 */
export function isPostgresSchemaName(name: unknown): name is string {
  return typeof name === 'string' && /^[a-z_][a-z0-9_]{0,62}$/.test(name);
}

/**
 * The first TLS parameter of a connection string (`sslmode`, `ssl`,
 * `sslcert`, `sslkey`, `sslrootcert`), or undefined. node-postgres lets
 * these replace the `tls` option, so the adapter refuses the two together.
 */
export function postgresTlsParameterOf(connectionString: string): string | undefined {
  return /[?&](sslmode|ssl|sslcert|sslkey|sslrootcert)=/i.exec(connectionString)?.[1]?.toLowerCase();
}
