import { InvalidOptionError } from '../port/errors/invalid-option.error';

/** How a subscription re-establishes itself after losing its server. */
export interface EventStoreDbReconnectOptions {
  /**
   * How long a subscription keeps trying to resubscribe after it lost the
   * server, in ms, before it ends with `StoreUnavailableError`. The clock
   * restarts whenever a resubscription is confirmed.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /**
   * First delay between two resubscription attempts, in ms; doubled after each
   * failed attempt up to `maxDelayMs`.
   * @default 50
   */
  readonly initialDelayMs?: number;
  /**
   * Longest delay between two resubscription attempts, in ms.
   * @default 1000
   */
  readonly maxDelayMs?: number;
}

/** Options of `EventStoreDbEventStore.connect`. */
export interface EventStoreDbEventStoreOptions {
  /**
   * An EventStoreDB connection string, e.g. `esdb://localhost:2113?tls=false`
   * or `esdb+discover://node1:2113,node2:2113`. Everything the client supports
   * (TLS, credentials, `defaultDeadline`, `keepAliveInterval`, node preference)
   * is set here. In the service it comes from `EVENTSTORE_CONNECTION_STRING`.
   */
  readonly connectionString: string;
  /**
   * Resubscription policy of subscriptions after a connection loss.
   * @default { timeoutMs: 30000, initialDelayMs: 50, maxDelayMs: 1000 }
   */
  readonly reconnect?: EventStoreDbReconnectOptions;
}

/** {@link EventStoreDbReconnectOptions} with every default applied. */
export type ResolvedReconnectOptions = Required<EventStoreDbReconnectOptions>;

/** Default resubscription policy. */
export const DEFAULT_RECONNECT: ResolvedReconnectOptions = { timeoutMs: 30_000, initialDelayMs: 50, maxDelayMs: 1_000 };

function nonNegativeInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidOptionError(option, `expected an integer >= 0, got ${String(value)}`);
  }
  return value;
}

/**
 * Checks the options at the boundary, with field-qualified messages.
 * @throws InvalidOptionError
 */
export function resolveEventStoreDbOptions(options: EventStoreDbEventStoreOptions): {
  readonly connectionString: string;
  readonly reconnect: ResolvedReconnectOptions;
} {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError('eventStoreDb', 'expected an options object');
  const { connectionString, reconnect = {} } = options;
  if (typeof connectionString !== 'string' || connectionString.trim() === '') {
    throw new InvalidOptionError('eventStoreDb.connectionString', 'expected a non-empty connection string such as esdb://localhost:2113?tls=false');
  }
  if (!/^esdb(\+discover)?:\/\//i.test(connectionString.trim())) {
    throw new InvalidOptionError('eventStoreDb.connectionString', 'expected the esdb:// or esdb+discover:// scheme');
  }
  const resolved: ResolvedReconnectOptions = {
    timeoutMs: nonNegativeInteger(reconnect.timeoutMs, 'eventStoreDb.reconnect.timeoutMs', DEFAULT_RECONNECT.timeoutMs),
    initialDelayMs: nonNegativeInteger(reconnect.initialDelayMs, 'eventStoreDb.reconnect.initialDelayMs', DEFAULT_RECONNECT.initialDelayMs),
    maxDelayMs: nonNegativeInteger(reconnect.maxDelayMs, 'eventStoreDb.reconnect.maxDelayMs', DEFAULT_RECONNECT.maxDelayMs),
  };
  if (resolved.maxDelayMs < resolved.initialDelayMs) {
    throw new InvalidOptionError('eventStoreDb.reconnect.maxDelayMs', 'must be >= initialDelayMs');
  }
  return { connectionString: connectionString.trim(), reconnect: resolved };
}
