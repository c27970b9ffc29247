import { existsSync, rmSync } from 'node:fs';
import { ProcessorDatabase } from '@agent-ledger/event-store';
import { ensureReadModelSources, ReadModelStoreMismatchError } from '@agent-ledger/projections';
import { readModelSources } from '@agent-ledger/module';
import type { SagaStoreMismatch } from '@agent-ledger/runtime';
import { AuditGapLedgerStoreMismatchError, ensureAuditGapLedgerStores } from '@agent-ledger/runtime';
import type { OpenStores } from './open-stores';
import { auditGapSagaPath, openReadModels, processorsPath, readModelsPath } from './read-models';
import type { ServiceConfig } from './service-config';
import { storeOf } from './store-location';

/** The command that rebuilds the read models from the configured stores. */
export const REBUILD_COMMAND = 'agent-ledger projections rebuild';

/** What the files derived from the stores are checked for, at start-up. */
export interface StoreIdentityCheckOptions {
  /** Check the read models (`serve`; a `worker` has none). */
  readonly readModels: boolean;
  /** Check the audit-gap saga's ledger of an earlier version, still to be imported (when this process runs the saga). */
  readonly saga: boolean;
  /** Check the processors' database (the queue and the saga's state: `serve` and `worker`). @default false */
  readonly processors?: boolean;
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
  if (options.processors === true && config.readModelsOnStoreMismatch !== 'rebuild') {
    // With `rebuild` the runtime resets the processors' state when it starts (logged).
    const mismatches = await processorDatabaseMismatches(config, stores);
    if (mismatches.length > 0) {
      found.push({
        what: `the processors' database ${processorsPath(config)} (the queue and the audit-gap saga's state) was made from another event store than ${mismatches.map((m) => mismatchOf(config, m.role, m.currentStoreId, m.recordedStoreId)).join(' and ')}`,
        roles: mismatches.map((m) => m.role),
      });
    }
  }
  if (found.length === 0) return null;
  const settings = settingsOf(config, found.flatMap((f) => f.roles));
  return [
    'refusing to start: files in the data folder were made from another event store than the configured one.',
    ...found.map((f) => `  - ${f.what}.`),
    `  Fix: \`${REBUILD_COMMAND}\` with the same settings (it rebuilds the read models from the configured stores and resets the saga's ledger and the processors' database), or start once with READ_MODELS_ON_STORE_MISMATCH=rebuild (the same, at start-up);`,
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

/** A store whose identity is not the one the processors' database recorded for it. */
interface ProcessorStoreMismatch {
  readonly role: 'runs' | 'audit';
  readonly recordedStoreId: string;
  readonly currentStoreId: string;
}

/** The stores the processors' database recorded that are not the configured ones (none while the file does not exist). */
async function processorDatabaseMismatches(config: ServiceConfig, stores: OpenStores): Promise<ProcessorStoreMismatch[]> {
  if (!existsSync(processorsPath(config))) return [];
  const database = ProcessorDatabase.open({ path: processorsPath(config) });
  try {
    // The runtime's runner names its sources by role; one store in both roles is read as `runs`.
    const roles = stores.auditStore === stores.runStore ? (['runs'] as const) : (['runs', 'audit'] as const);
    const mismatches: ProcessorStoreMismatch[] = [];
    for (const role of roles) {
      const current = (await (role === 'runs' ? stores.runStore : stores.auditStore).storeIdentity()).id;
      const recorded = database.sourceIdentity(role);
      if (recorded !== undefined && recorded !== current) mismatches.push({ role, recordedStoreId: recorded, currentStoreId: current });
    }
    return mismatches;
  } finally {
    database.close();
  }
}

/**
 * Removes the processors' database when it was made from other stores (told
 * through `log`): the queue and the saga then follow the configured stores
 * from their start (the saga's decisions are idempotent). For `projections rebuild`.
 * @returns whether it removed it
 */
export async function resetProcessorsOfOtherStores(config: ServiceConfig, stores: OpenStores, log: (message: string) => void): Promise<boolean> {
  const mismatches = await processorDatabaseMismatches(config, stores);
  if (mismatches.length === 0) return false;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${processorsPath(config)}${suffix}`, { force: true });
  log(`The processors' database ${processorsPath(config)} was made from another event store than ${mismatches.map((m) => storeOf(config, m.role)).join(' and ')}: removed; the queue and the audit-gap saga follow the configured stores from their start`);
  return true;
}

function mismatchOf(config: ServiceConfig, role: 'runs' | 'audit', current: string, recordedId: string | null): string {
  return `${storeOf(config, role)}: that is store ${current}, ${recorded(recordedId)}`;
}

function recorded(id: string | null): string {
  return id === null ? 'the file recorded no store identity (an older version) and its checkpoints do not fit this store' : `the file recorded store ${id}`;
}

function settingsOf(config: ServiceConfig, roles: ReadonlyArray<'runs' | 'audit'>): string {
  const runStoreSettings = config.eventStorePath !== null ? 'EVENT_STORE_PATH' : config.postgres !== null ? 'POSTGRES_CONNECTION_STRING (and POSTGRES_SCHEMA)' : 'EVENTSTORE_CONNECTION_STRING';
  const names = new Set(roles.map((role) => (role === 'audit' && config.auditStorePath !== null ? 'AUDIT_STORE_PATH' : runStoreSettings)));
  return [...names].join(' and ');
}
