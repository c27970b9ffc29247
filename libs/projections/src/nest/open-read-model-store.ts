import { Logger } from '@nestjs/common';
import { ensureReadModelSources } from '../identity/check-read-model-sources';
import { ProjectionStore } from '../store/projection-store';
import type { ProjectionsModuleOptions } from './projections-module-options';

/**
 * Opens the module's read-model database and makes sure it comes from the
 * module's sources (`ensureReadModelSources`, with the options'
 * `onStoreMismatch`), before any runner or query uses it. On a refusal the
 * file is closed again.
 *
 * @throws ReadModelStoreMismatchError when the read models come from other stores and `onStoreMismatch` is `refuse`
 */
export async function openReadModelStore(options: ProjectionsModuleOptions): Promise<ProjectionStore> {
  const logger = new Logger('Projections');
  const store = ProjectionStore.open({ path: options.databasePath });
  try {
    await ensureReadModelSources(store, options.sources, { onMismatch: options.onStoreMismatch, log: (message) => logger.warn(message) });
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}
