import type { EventStoreDbEventStoreOptions } from './eventstoredb/eventstoredb-options';
import { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
import { InvalidOptionError } from './port/errors/invalid-option.error';
import type { EventStore } from './port/event-store';
import type { SqliteEventStoreOptions } from './sqlite/sqlite-options';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

/** The environment variable that selects EventStoreDB and says where it is. */
export const EVENTSTORE_CONNECTION_STRING = 'EVENTSTORE_CONNECTION_STRING';

/** Configuration of {@link createEventStore}. */
export interface CreateEventStoreConfig {
  /**
   * Where `EVENTSTORE_CONNECTION_STRING` is read.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Options of the embedded store, used when no connection string is set;
   * then `sqlite.path` is required (there is no default file, so that a host
   * application's store never lands in the agent-ledger service's
   * `./data/agent-ledger.sqlite`).
   */
  readonly sqlite?: SqliteEventStoreOptions;
  /**
   * Options of the EventStoreDB adapter other than the connection string, used
   * when one is set.
   * @default {} (see `EventStoreDbEventStoreOptions`)
   */
  readonly eventStoreDb?: Omit<EventStoreDbEventStoreOptions, 'connectionString'>;
}

/** Which store {@link createEventStore} opens, and where. */
export type EventStoreSelection =
  | { readonly kind: 'eventstoredb'; readonly connectionString: string }
  | { readonly kind: 'sqlite'; readonly path: string };

/**
 * Decides which store to open, without opening it: EventStoreDB when
 * `EVENTSTORE_CONNECTION_STRING` is set to something other than blanks, the
 * embedded SQLite store at `sqlite.path` otherwise.
 *
 * @throws InvalidOptionError (`sqlite.path`) when the embedded store is selected and no path is given.
 */
export function selectEventStore(config: CreateEventStoreConfig = {}): EventStoreSelection {
  const env = config.env ?? process.env;
  const connectionString = env[EVENTSTORE_CONNECTION_STRING]?.trim();
  if (connectionString) return { kind: 'eventstoredb', connectionString };
  const path = config.sqlite?.path;
  if (typeof path !== 'string' || path.trim() === '') {
    throw new InvalidOptionError(
      'sqlite.path',
      `is required when ${EVENTSTORE_CONNECTION_STRING} is not set: name the embedded store's file, e.g. createEventStore({ sqlite: { path: './data/my-app.sqlite' } }) (there is no default, so that a host's store never lands in the agent-ledger service's ./data/agent-ledger.sqlite)`,
    );
  }
  return { kind: 'sqlite', path };
}

/**
 * Opens the product's event store: EventStoreDB (through
 * {@link EventStoreDbEventStore}) when `EVENTSTORE_CONNECTION_STRING` is set,
 * e.g. `esdb://localhost:2113?tls=false`; otherwise the embedded SQLite store
 * at `sqlite.path` (required; its directory created if missing). The caller
 * owns the store and closes it.
 *
 * @remarks **Warning:** with EventStoreDB, connecting is lazy: a wrong host or
 * a stopped server is reported by the first call (`StoreUnavailableError`),
 * not here.
 * @throws InvalidOptionError for an invalid connection string or options, or
 *   (`sqlite.path`) when no connection string is set and no path is given.
 * @throws StoreUnavailableError when the SQLite file cannot be opened.
 */
export function createEventStore(config: CreateEventStoreConfig): EventStore {
  const selection = selectEventStore(config);
  if (selection.kind === 'eventstoredb') {
    return EventStoreDbEventStore.connect({ ...config.eventStoreDb, connectionString: selection.connectionString });
  }
  return SqliteEventStore.open({ ...config.sqlite, path: selection.path });
}
