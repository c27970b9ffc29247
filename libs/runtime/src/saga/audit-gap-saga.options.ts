import { ConfigurationError } from '@agent-ledger/domain';
import type { SagaStoreMismatchPolicy } from './audit-gap-ledger-stores';

/** Options of the audit-gap saga. */
export interface AuditGapSagaOptions {
  /** Run the saga in this process. Several processes may run it: its decisions are idempotent. @default true */
  readonly enabled?: boolean;
  /**
   * The SQLite file that keeps the saga's checkpoints and pending deadlines,
   * so that a restart neither loses a pending write nor replays history.
   * Required while the saga is enabled: there is no default, so that a host's
   * ledger never lands in the agent-ledger service's `./data/audit-gap-saga.sqlite`
   * (`ConfigurationError` naming `auditGapSaga.databasePath`).
   */
  readonly databasePath?: string;
  /**
   * What to do when the ledger was made from other stores than the saga's
   * (each store's identity is recorded in the ledger): `refuse` fails the
   * application's start with `AuditGapLedgerStoreMismatchError`; `reset`
   * forgets the ledger's state and follows the stores from their start (logged).
   * @default 'refuse'
   */
  readonly onStoreMismatch?: SagaStoreMismatchPolicy;
  /** How long a write's audit event may take to arrive after its `ToolExecuted`. @default 60000 */
  readonly gracePeriodMs?: number;
  /**
   * How often pending deadlines are checked (an indexed query on the saga's
   * own file; a check still running is not started twice). It bounds how late
   * past its deadline a missing audit is caught. 0: only by `checkDeadlines()`.
   * @default 50
   */
  readonly checkIntervalMs?: number;
}

/** Injection token of the {@link AuditGapSagaOptions}. */
export const AUDIT_GAP_SAGA_OPTIONS = Symbol('agent-ledger:AuditGapSagaOptions');

/** How often pending deadlines are checked by default: a missing audit is caught within grace + 50 ms (the bench's saga scenario). */
export const DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS = 50;

/**
 * The saga's options, checked: a saga that runs needs its ledger's file.
 * @throws ConfigurationError naming `<field>.databasePath` when the saga is enabled without one
 */
export function checkAuditGapSagaOptions(options: AuditGapSagaOptions | undefined, field = 'auditGapSaga'): AuditGapSagaOptions {
  const checked = options ?? {};
  if (checked.enabled === false) return checked;
  if (typeof checked.databasePath !== 'string' || checked.databasePath.trim() === '') {
    throw new ConfigurationError(
      `${field}.databasePath is required while the audit-gap saga is enabled: name its ledger file, e.g. join(dataDir, 'audit-gap-saga.sqlite') (there is no default, so that a host's ledger never lands in the agent-ledger service's ./data/audit-gap-saga.sqlite), or set ${field}.enabled to false`,
    );
  }
  return checked;
}
