import type { EventStoreDbEventStoreOptions } from './eventstoredb/eventstoredb-options';
import { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
import { InvalidOptionError } from './port/errors/invalid-option.error';
import type { EventStore } from './port/event-store';
import type { PostgresEventStoreOptions } from './postgres/postgres-options';
import { PostgresEventStore } from './postgres/postgres-event-store';
import type { SqliteEventStoreOptions } from './sqlite/sqlite-options';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

/** The environment variable that selects EventStoreDB and says where it is. */
export const EVENTSTORE_CONNECTION_STRING = 'EVENTSTORE_CONNECTION_STRING';

/** The environment variable that selects PostgreSQL and says where it is. */
export const POSTGRES_CONNECTION_STRING = 'POSTGRES_CONNECTION_STRING';

/** Configuration of {@link createEventStore}. */
export interface CreateEventStoreConfig {
  /**
   * Where `EVENTSTORE_CONNECTION_STRING` and `POSTGRES_CONNECTION_STRING` are read.
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
  /**
   * Options of the PostgreSQL adapter other than the connection string (the
   * schema, the pool's size, TLS), used when `POSTGRES_CONNECTION_STRING` is set.
   * @default {} (see `PostgresEventStoreOptions`)
   */
  readonly postgres?: Omit<PostgresEventStoreOptions, 'connectionString'>;
}

/** Which store {@link createEventStore} opens, and where. */
export type EventStoreSelection =
  | { readonly kind: 'eventstoredb'; readonly connectionString: string }
  | { readonly kind: 'postgres'; readonly connectionString: string }
  | { readonly kind: 'sqlite'; readonly path: string };

/**
 * Decides which store to open, without opening it: EventStoreDB when
 * `EVENTSTORE_CONNECTION_STRING` is set to something other than blanks,
 * PostgreSQL when `POSTGRES_CONNECTION_STRING` is, the embedded SQLite store
 * at `sqlite.path` otherwise.
 *
 * @throws InvalidOptionError (`POSTGRES_CONNECTION_STRING`) when both connection strings are set;
 *   (`sqlite.path`) when the embedded store is selected and no path is given.
 */
export function selectEventStore(config: CreateEventStoreConfig = {}): EventStoreSelection {
  const env = config.env ?? process.env;
  const eventStoreDb = env[EVENTSTORE_CONNECTION_STRING]?.trim();
  const postgres = env[POSTGRES_CONNECTION_STRING]?.trim();
  if (eventStoreDb && postgres) {
    throw new InvalidOptionError(
      POSTGRES_CONNECTION_STRING,
      `must not be set with ${EVENTSTORE_CONNECTION_STRING}: one store, PostgreSQL or EventStoreDB (unset one of ${POSTGRES_CONNECTION_STRING} and ${EVENTSTORE_CONNECTION_STRING})`,
    );
  }
  if (eventStoreDb) return { kind: 'eventstoredb', connectionString: eventStoreDb };
  if (postgres) return { kind: 'postgres', connectionString: postgres };
  const path = config.sqlite?.path;
  if (typeof path !== 'string' || path.trim() === '') {
    throw new InvalidOptionError(
      'sqlite.path',
      `is required when neither ${EVENTSTORE_CONNECTION_STRING} nor ${POSTGRES_CONNECTION_STRING} is set: name the embedded store's file, e.g. createEventStore({ sqlite: { path: './data/my-app.sqlite' } }) (there is no default, so that a host's store never lands in the agent-ledger service's ./data/agent-ledger.sqlite)`,
    );
  }
  return { kind: 'sqlite', path };
}

/**
 * Opens the product's event store: EventStoreDB (through
 * {@link EventStoreDbEventStore}) when `EVENTSTORE_CONNECTION_STRING` is set,
 * e.g. `esdb://localhost:2113?tls=false`; PostgreSQL (through
 * {@link PostgresEventStore}, with `postgres`'s options) when
 * `POSTGRES_CONNECTION_STRING` is set, e.g.
 * `postgresql://agent_ledger@db:5432/agent_ledger`; otherwise the embedded
 * SQLite store at `sqlite.path` (required; its directory created if
 * missing). The caller owns the store and closes it.
 *
 * @remarks **Warning:** with EventStoreDB and PostgreSQL, connecting is lazy:
 * a wrong host or a stopped server is reported by the first call
 * (`StoreUnavailableError`), not here.
 * @throws InvalidOptionError for an invalid connection string or options, when
 *   both connection strings are set, or (`sqlite.path`) when no connection
 *   string is set and no path is given.
 * @throws StoreUnavailableError when the SQLite file cannot be opened.
 */
export function createEventStore(config: CreateEventStoreConfig): EventStore {
  const selection = selectEventStore(config);
  if (selection.kind === 'eventstoredb') {
    return EventStoreDbEventStore.connect({ ...config.eventStoreDb, connectionString: selection.connectionString });
  }
  if (selection.kind === 'postgres') {
    return PostgresEventStore.connect({ ...config.postgres, connectionString: selection.connectionString });
  }
  return SqliteEventStore.open({ ...config.sqlite, path: selection.path });
}
