import { join } from 'node:path';
import type { ProjectionSource } from '@agent-ledger/projections';
import { ProjectionStore } from '@agent-ledger/projections';
import type { ServiceConfig } from '../config/service-config';
import type { OpenStores } from '../config/open-stores';

/** The read-model file of the service. */
export function readModelsPath(config: ServiceConfig): string {
  return join(config.dataDir, 'read-models.sqlite');
}

/**
 * The projections' sources, named as the service names them: `runs`, plus
 * `audit` when the audit streams live in a store of their own.
 */
export function projectionSources(stores: OpenStores): ProjectionSource[] {
  return stores.auditStore === stores.runStore
    ? [{ name: 'runs', store: stores.runStore }]
    : [
        { name: 'runs', store: stores.runStore },
        { name: 'audit', store: stores.auditStore },
      ];
}

/** Opens the service's read models. */
export function openReadModels(config: ServiceConfig): ProjectionStore {
  return ProjectionStore.open({ path: readModelsPath(config) });
}
