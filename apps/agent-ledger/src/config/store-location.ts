import type { ServiceConfig } from './service-config';

/** The kind of the run store a configuration names, and where it is, safe to print. */
export interface RunStoreLocation {
  readonly kind: 'sqlite' | 'postgres' | 'eventstoredb';
  /** The file; PostgreSQL's connection without its password, and the schema; EventStoreDB's address without credentials. */
  readonly location: string;
}

/** The run store of `config`: the embedded file, PostgreSQL or EventStoreDB. */
export function runStoreLocation(config: Pick<ServiceConfig, 'eventStorePath' | 'eventStoreConnectionString' | 'postgres'>): RunStoreLocation {
  if (config.eventStorePath !== null) return { kind: 'sqlite', location: config.eventStorePath };
  if (config.postgres !== null) return { kind: 'postgres', location: `${withoutPassword(config.postgres.connectionString)} schema ${config.postgres.schema}` };
  return { kind: 'eventstoredb', location: withoutCredentials(config.eventStoreConnectionString ?? '') };
}

/** Where a store of the service is, for messages: its file, EventStoreDB's address without credentials, or PostgreSQL's without password, and its schema. */
export function storeOf(config: Pick<ServiceConfig, 'eventStorePath' | 'eventStoreConnectionString' | 'postgres' | 'auditStorePath'>, role: 'runs' | 'audit'): string {
  if (role === 'audit' && config.auditStorePath !== null) return `the audit store ${config.auditStorePath} (AUDIT_STORE_PATH)`;
  const prefix = role === 'audit' ? 'the audit store (the run store)' : 'the run store';
  const { kind, location } = runStoreLocation(config);
  if (kind === 'sqlite') return `${prefix} ${location} (EVENT_STORE_PATH)`;
  return kind === 'postgres' ? `${prefix} PostgreSQL at ${location} (POSTGRES_CONNECTION_STRING)` : `${prefix} EventStoreDB at ${location} (EVENTSTORE_CONNECTION_STRING)`;
}

/** A connection string without its `user:password@`. */
export function withoutCredentials(connectionString: string): string {
  return connectionString.replace(/^([a-z+]+:\/\/)[^@/]*@/i, '$1');
}

/**
 * A PostgreSQL connection string without its password: the URL form's
 * `user:password@` becomes `user@` and a `password` parameter is dropped; in
 * the key-value form (`host=db password=secret`) the `password=` pair is dropped.
 */
export function withoutPassword(connectionString: string): string {
  if (/^[a-z]+:\/\//i.test(connectionString)) {
    return connectionString
      .replace(/^([a-z]+:\/\/[^@/?#:]*):[^@/?#]*@/i, '$1@')
      .replace(/([?&])password=[^&#]*(&?)/gi, (_match, before: string, after: string) => (after === '' ? '' : before))
      .replace(/\?$/, '');
  }
  return connectionString.replace(/\s*\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)/gi, '').trim();
}
