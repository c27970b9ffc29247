import type { OpenStores } from '../config/open-stores';
import type { ServiceConfig } from '../config/service-config';
import type { RunStoreLocation } from '../config/store-location';
import { runStoreLocation } from '../config/store-location';
import type { CliOutput } from './cli-output';
import { unreadConfigFiles } from './unread-config-file';

/** One store a verb read: what kind, where, and the identity recorded in it. */
export interface StoreRead extends RunStoreLocation {
  /** The identity recorded in the store (`agent-ledger` gives every store one when it creates it). */
  readonly storeId: string;
}

/**
 * What a verb that opens the stores (`audit review`, `audit verify`,
 * `projections rebuild`) read: printed on its first line, and its `stores`
 * field with `--json`, so that nobody mistakes a review of one store for one
 * of another.
 */
export interface StoresRead {
  readonly runStore: StoreRead;
  /** The audit streams' store when it is a file of its own (`AUDIT_STORE_PATH`); null when the run store holds them. */
  readonly auditStore: StoreRead | null;
  /** The configuration file read (absolute), or null: the environment and the defaults only. */
  readonly configFile: string | null;
  /**
   * The service configuration files in the current folder that were NOT read
   * (no `--config`, no `AGENT_LEDGER_CONFIG`): when there are some, the stores
   * read may not be the service's.
   */
  readonly unreadConfigFiles: readonly string[];
}

/** What the configuration's stores are, with the identities read from them. */
export async function storesRead(config: ServiceConfig, stores: OpenStores, cwd: string): Promise<StoresRead> {
  const runStore: StoreRead = { ...runStoreLocation(config), storeId: (await stores.runStore.storeIdentity()).id };
  const auditStore: StoreRead | null =
    config.auditStorePath === null || stores.auditStore === stores.runStore
      ? null
      : { kind: 'sqlite', location: config.auditStorePath, storeId: (await stores.auditStore.storeIdentity()).id };
  return { runStore, auditStore, configFile: config.configFile, unreadConfigFiles: unreadConfigFiles(config, cwd) };
}

const KIND_NAMES: Record<StoreRead['kind'], string> = { sqlite: 'embedded SQLite', postgres: 'PostgreSQL', eventstoredb: 'EventStoreDB' };

/** The first line of a store verb's text output: `Stores read: embedded SQLite /srv/data/agent-ledger.sqlite (store 4f...); ...`. */
export function storesLine(read: StoresRead): string {
  const store = (s: StoreRead) => `${KIND_NAMES[s.kind]} ${s.location} (store ${s.storeId})`;
  const audit = read.auditStore === null ? '' : `; audit store ${store(read.auditStore)}`;
  const from = read.configFile === null ? 'the environment and the defaults, no configuration file' : `the configuration file ${read.configFile} and the environment`;
  return `Stores read: ${store(read.runStore)}${audit}; settings from ${from}`;
}

/** The warning, for standard error, that configuration files here were not read; null when there is none. */
export function unreadConfigFileWarning(read: Pick<StoresRead, 'unreadConfigFiles'>, verb: string): string | null {
  const [first, ...others] = read.unreadConfigFiles;
  if (first === undefined) return null;
  return (
    `agent-ledger ${verb}: warning: ${[first, ...others].join(', ')} ${others.length === 0 ? 'was' : 'were'} not read (no --config, AGENT_LEDGER_CONFIG unset): ` +
    `the stores above come from the environment and the defaults, and may not be the service's. ` +
    `To read the service's stores: agent-ledger ${verb} --config ${first}`
  );
}

/** Prints which stores a verb reads: the line on standard output (not with `--json`, whose `stores` field says it), the warning on standard error. */
export function announceStores(read: StoresRead, verb: string, output: CliOutput, json: boolean): void {
  if (!json) output.out(storesLine(read));
  const warning = unreadConfigFileWarning(read, verb);
  if (warning !== null) output.err(warning);
}
