import type { EventStore, RecordedEvent } from '@agent-ledger/event-store';
import { comparePositions, eventTypeFilter, InvalidPositionError, parsePosition } from '@agent-ledger/event-store';
import { LegacyLedgerFile, SAGA_SOURCE_ROLES } from './legacy-ledger-file';
import type { SagaStoreMismatch, SagaStoreRole } from './audit-gap-ledger-store-mismatch.error';
import { AuditGapLedgerStoreMismatchError } from './audit-gap-ledger-store-mismatch.error';

/** The run events that call for a statement, and the audit events that make one. */
export const DECISION_EVENT_TYPES = ['RunRequested', 'ApprovalGranted', 'ApprovalDenied', 'InputSubmitted', 'RunRequeuedByOperator'] as const;
export const STATEMENT_EVENT_TYPES = ['RunStartRecorded', 'ApprovalDecisionRecorded', 'InputAnswerRecorded', 'WriteResolutionRecorded'] as const;

/** The event types each processor of the saga takes. */
export const SAGA_EVENT_TYPES = {
  writes: ['ToolExecuted'],
  decisions: DECISION_EVENT_TYPES,
  audits: ['AuditRecorded'],
  statements: STATEMENT_EVENT_TYPES,
} as const;

/**
 * What to do when the saga's ledger was made from other stores than the ones
 * the saga is given: `refuse` (throw {@link AuditGapLedgerStoreMismatchError}),
 * or `reset` (forget the ledger's state and follow the stores from their start;
 * the saga's decisions are idempotent, so replaying history reports nothing twice).
 */
export type SagaStoreMismatchPolicy = 'refuse' | 'reset';

/** Every {@link SagaStoreMismatchPolicy}. */
export const SAGA_STORE_MISMATCH_POLICIES: readonly SagaStoreMismatchPolicy[] = ['refuse', 'reset'];

/** Options of {@link ensureAuditGapLedgerStores}. */
export interface EnsureAuditGapLedgerStoresOptions {
  /** What to do on a mismatch. @default 'refuse' */
  readonly onMismatch?: SagaStoreMismatchPolicy;
  /** The time recorded with an identity (ms since the epoch). */
  readonly now: number;
  /** Where a reset is told. @default nowhere */
  readonly log?: (message: string) => void;
}

/**
 * Makes sure a saga ledger file of an earlier version at `path` (one that is
 * still to be imported into the processors' database) was made from `stores`
 * (opened, checked, closed), for a process that checks before it starts the
 * saga (the service's start-up, `projections rebuild`). It compares each
 * store's identity with the one the ledger recorded, and records it where
 * there is none yet and the ledger provably follows that store (one made by a
 * version that recorded none, whose checkpoints each fall exactly on an event
 * of the store of a type the saga follows there). Otherwise it refuses or
 * resets, as `onMismatch` says. The saga runs the same check before it
 * imports the file (`AuditGapSagaOptions.onStoreMismatch`).
 *
 * @returns what it did: `same` (also when there is no such file), `recorded` (adopted), or `reset`
 * @throws AuditGapLedgerStoreMismatchError on a mismatch with `refuse` (nothing written)
 */
export async function ensureAuditGapLedgerStores(
  path: string,
  stores: Readonly<Record<SagaStoreRole, EventStore>>,
  options: EnsureAuditGapLedgerStoresOptions,
): Promise<'same' | 'recorded' | 'reset'> {
  const ledger = LegacyLedgerFile.openIfAny(path);
  if (ledger === null) return 'same';
  try {
    return await ensureLedgerStores(ledger, stores, options);
  } finally {
    ledger.close();
  }
}

/**
 * The check of `ensureAuditGapLedgerStores` on a ledger file already open.
 *
 * @returns what it did: `same`, `recorded` (new or adopted), or `reset`
 * @throws AuditGapLedgerStoreMismatchError on a mismatch with `refuse` (nothing written)
 */
export async function ensureLedgerStores(
  ledger: LegacyLedgerFile,
  stores: Readonly<Record<SagaStoreRole, EventStore>>,
  options: EnsureAuditGapLedgerStoresOptions,
): Promise<'same' | 'recorded' | 'reset'> {
  const recorded = ledger.storeIdentities();
  const current = {
    runs: (await stores.runs.storeIdentity()).id,
    audit: stores.audit === stores.runs ? undefined : (await stores.audit.storeIdentity()).id,
  };
  const idOf = (role: SagaStoreRole): string => (role === 'audit' ? (current.audit ?? current.runs) : current.runs);
  const mismatches: SagaStoreMismatch[] = [];
  const toRecord: SagaStoreRole[] = [];
  for (const role of ['runs', 'audit'] as const) {
    const known = recorded.get(role);
    if (known !== undefined) {
      if (known !== idOf(role)) mismatches.push({ role, recordedStoreId: known, currentStoreId: idOf(role) });
    } else if (await checkpointsFit(ledger, role, stores[role])) {
      toRecord.push(role);
    } else {
      mismatches.push({ role, recordedStoreId: null, currentStoreId: idOf(role) });
    }
  }
  if (mismatches.length === 0) {
    for (const role of toRecord) ledger.recordStoreIdentity(role, idOf(role), options.now);
    return toRecord.length === 0 ? 'same' : 'recorded';
  }
  // One store in both roles: name it once.
  const shown = stores.audit === stores.runs && mismatches.some((m) => m.role === 'runs') ? mismatches.filter((m) => m.role === 'runs') : mismatches;
  const error = new AuditGapLedgerStoreMismatchError(ledger.path, shown);
  if ((options.onMismatch ?? 'refuse') !== 'reset') throw error;
  ledger.reset();
  for (const role of ['runs', 'audit'] as const) ledger.recordStoreIdentity(role, idOf(role), options.now);
  options.log?.(`${error.message.replace(/: reset it.*$/, '')}: reset it (onStoreMismatch: reset); the saga follows these stores from their start`);
  return 'reset';
}

/** Whether every checkpoint of the role's subscriptions falls on an event of `store` of a type that subscription follows (vacuously true when there is none). */
async function checkpointsFit(ledger: LegacyLedgerFile, role: SagaStoreRole, store: EventStore): Promise<boolean> {
  for (const [source, token] of ledger.checkpoints()) {
    if (SAGA_SOURCE_ROLES[source] !== role) continue;
    const types = SAGA_EVENT_TYPES[source];
    let event: RecordedEvent | undefined;
    try {
      const position = parsePosition(token);
      for await (const found of store.readAll({ fromPosition: position, maxCount: 1, filter: eventTypeFilter(...types) })) event = found;
      if (event === undefined || comparePositions(event.position, position) !== 0) return false;
    } catch (error) {
      if (error instanceof InvalidPositionError) return false;
      throw error;
    }
  }
  return true;
}
