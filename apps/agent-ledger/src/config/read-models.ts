import { join } from 'node:path';
import { ProjectionStore } from '@agent-ledger/projections';
import type { SagaStoreMismatchPolicy } from '@agent-ledger/runtime';
import type { ServiceConfig } from './service-config';

/** The read-model file of the service. */
export function readModelsPath(config: ServiceConfig): string {
  return join(config.dataDir, 'read-models.sqlite');
}

/** The audit-gap saga's ledger file of the service (and of its workers, which share it). */
export function auditGapSagaPath(config: ServiceConfig): string {
  return join(config.dataDir, 'audit-gap-saga.sqlite');
}

/**
 * The processors' database of the service and of its workers, which share it:
 * the queue's unfinished runs and the audit-gap saga's state, with their
 * checkpoints. A ledger at {@link auditGapSagaPath} left by an earlier
 * version is imported into it when the saga starts, then renamed
 * `audit-gap-saga.sqlite.migrated`.
 */
export function processorsPath(config: ServiceConfig): string {
  return join(config.dataDir, 'processors.sqlite');
}

/** Opens the service's read models. */
export function openReadModels(config: ServiceConfig): ProjectionStore {
  return ProjectionStore.open({ path: readModelsPath(config) });
}

/** The saga's answer to `READ_MODELS_ON_STORE_MISMATCH`: `rebuild` resets its ledger. */
export function sagaMismatchPolicyOf(config: Pick<ServiceConfig, 'readModelsOnStoreMismatch'>): SagaStoreMismatchPolicy {
  return config.readModelsOnStoreMismatch === 'rebuild' ? 'reset' : 'refuse';
}
