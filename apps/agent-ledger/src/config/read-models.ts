import { join } from 'node:path';
import type { ProjectionSource } from '@agent-ledger/projections';
import { ProjectionStore } from '@agent-ledger/projections';
import type { ServiceConfig } from './service-config';
import type { OpenStores } from './open-stores';

/** The read-model file of the service. */
export function readModelsPath(config: ServiceConfig): string {
  return join(config.dataDir, 'read-models.sqlite');
}

/**
 * The projections' sources, named as the service names them: `runs`, plus
 * `audit` when the audit streams live in a store of their own.
 */
export function projectionSources(stores: Pick<OpenStores, 'runStore' | 'auditStore'>): ProjectionSource[] {
  return stores.auditStore === stores.runStore
    ? [{ name: 'runs', store: stores.runStore }]
    : [
        { name: 'runs', store: stores.runStore },
        { name: 'audit', store: stores.auditStore },
      ];
}

/** The audit-gap saga's ledger file of the service (and of its workers, which share it). */
export function auditGapSagaPath(config: ServiceConfig): string {
  return join(config.dataDir, 'audit-gap-saga.sqlite');
}

/** Opens the service's read models. */
export function openReadModels(config: ServiceConfig): ProjectionStore {
  return ProjectionStore.open({ path: readModelsPath(config) });
}
