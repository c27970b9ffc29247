import { ensureReadModelSources, ReadModelStoreMismatchError } from '@agent-ledger/projections';
import { readModelSources } from '@agent-ledger/module';
import type { SagaStoreMismatch } from '@agent-ledger/runtime';
import { AuditGapLedgerStoreMismatchError, ensureAuditGapLedgerStores } from '@agent-ledger/runtime';
import type { OpenStores } from './open-stores';
import { auditGapSagaPath, openReadModels, readModelsPath } from './read-models';
import type { ServiceConfig } from './service-config';

/** The command that rebuilds the read models from the configured stores. */
export const REBUILD_COMMAND = 'agent-ledger projections rebuild';

/** What the files derived from the stores are checked for, at start-up. */
export interface StoreIdentityCheckOptions {
  /** Check the read models (`serve`; a `worker` has none). */
  readonly readModels: boolean;
  /** Check the audit-gap saga's ledger (when this process runs the saga). */
  readonly saga: boolean;
  /** Where adoptions, rebuilds and resets are told. */
  readonly log: (message: string) => void;
}

/**
 * Checks, before the application is built, that the read models and the
 * audit-gap saga's ledger under the data folder were made from the configured
 * stores (each records the identity of the stores it follows). With
 * `READ_MODELS_ON_STORE_MISMATCH=rebuild`, a mismatch is repaired here (the
 * read models rebuilt, the ledger reset) and logged; otherwise it is refused.
 *
 * @returns the refusal to print (naming the files, the store and the fix), or null when the service may start
 * @throws the stores' errors (an unreachable EventStoreDB)
 */
export async function checkStoreIdentities(config: ServiceConfig, stores: OpenStores, options: StoreIdentityCheckOptions): Promise<string | null> {
  const found: Array<{ readonly what: string; readonly roles: ReadonlyArray<'runs' | 'audit'> }> = [];
  if (options.readModels) {
    const readModels = openReadModels(config);
    try {
      await ensureReadModelSources(readModels, readModelSources(stores.runStore, stores.auditStore), { onMismatch: config.readModelsOnStoreMismatch, log: options.log });
    } catch (error) {
      if (!(error instanceof ReadModelStoreMismatchError)) throw error;
      const roles = error.mismatches.map((m) => (m.source === 'audit' ? 'audit' : 'runs') as 'runs' | 'audit');
      found.push({ what: `the read models ${readModelsPath(config)} were made from another event store than ${error.mismatches.map((m, i) => mismatchOf(config, roles[i] as 'runs' | 'audit', m.currentStoreId, m.recordedStoreId)).join(' and ')}`, roles });
    } finally {
      readModels.close();
    }
  }
  if (options.saga) {
    try {
      await resetOrCheckLedger(config, stores, config.readModelsOnStoreMismatch === 'rebuild' ? 'reset' : 'refuse', options.log);
    } catch (error) {
      if (!(error instanceof AuditGapLedgerStoreMismatchError)) throw error;
      found.push({
        what: `the audit-gap saga's ledger ${auditGapSagaPath(config)} was made from another event store than ${error.mismatches.map((m: SagaStoreMismatch) => mismatchOf(config, m.role, m.currentStoreId, m.recordedStoreId)).join(' and ')}`,
        roles: error.mismatches.map((m) => m.role),
      });
    }
  }
  if (found.length === 0) return null;
  const settings = settingsOf(config, found.flatMap((f) => f.roles));
  return [
    'refusing to start: files in the data folder were made from another event store than the configured one.',
    ...found.map((f) => `  - ${f.what}.`),
    `  Fix: \`${REBUILD_COMMAND}\` with the same settings (it rebuilds the read models from the configured stores and resets the saga's ledger), or start once with READ_MODELS_ON_STORE_MISMATCH=rebuild (the same, at start-up);`,
    `  or set ${settings} back to the store these files were made from, or AGENT_LEDGER_DATA_DIR to the data folder of this store.`,
  ].join('\n');
}

/**
 * Checks the audit-gap saga's ledger against the stores, resetting it on a
 * mismatch with `reset` (logged). For the service's start-up and for
 * `projections rebuild`.
 * @throws AuditGapLedgerStoreMismatchError on a mismatch with `refuse`
 */
export async function resetOrCheckLedger(config: ServiceConfig, stores: OpenStores, onMismatch: 'refuse' | 'reset', log: (message: string) => void): Promise<'same' | 'recorded' | 'reset'> {
  return ensureAuditGapLedgerStores(auditGapSagaPath(config), { runs: stores.runStore, audit: stores.auditStore }, { onMismatch, now: Date.now(), log });
}

function mismatchOf(config: ServiceConfig, role: 'runs' | 'audit', current: string, recordedId: string | null): string {
  return `${storeOf(config, role)}: that is store ${current}, ${recorded(recordedId)}`;
}

function recorded(id: string | null): string {
  return id === null ? 'the file recorded no store identity (an older version) and its checkpoints do not fit this store' : `the file recorded store ${id}`;
}

/** Where a store of the service is, for messages: its file, or EventStoreDB's address without credentials. */
export function storeOf(config: Pick<ServiceConfig, 'eventStorePath' | 'eventStoreConnectionString' | 'auditStorePath'>, role: 'runs' | 'audit'): string {
  if (role === 'audit' && config.auditStorePath !== null) return `the audit store ${config.auditStorePath} (AUDIT_STORE_PATH)`;
  const prefix = role === 'audit' ? 'the audit store (the run store)' : 'the run store';
  if (config.eventStorePath !== null) return `${prefix} ${config.eventStorePath} (EVENT_STORE_PATH)`;
  return `${prefix} EventStoreDB at ${withoutCredentials(config.eventStoreConnectionString ?? '')} (EVENTSTORE_CONNECTION_STRING)`;
}

function settingsOf(config: ServiceConfig, roles: ReadonlyArray<'runs' | 'audit'>): string {
  const names = new Set(roles.map((role) => (role === 'audit' && config.auditStorePath !== null ? 'AUDIT_STORE_PATH' : config.eventStorePath !== null ? 'EVENT_STORE_PATH' : 'EVENTSTORE_CONNECTION_STRING')));
  return [...names].join(' and ');
}

/** A connection string without its `user:password@`. */
export function withoutCredentials(connectionString: string): string {
  return connectionString.replace(/^([a-z+]+:\/\/)[^@/]*@/i, '$1');
}
