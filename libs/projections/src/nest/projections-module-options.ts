import type { ProjectionSource } from '../runner/projection-source';
import { isValidSourceName } from '../runner/projection-source';
import type { ProjectionRunnerOptions } from '../runner/projection-runner';
import { InvalidProjectionOptionError } from '../errors/invalid-projection-option.error';
import type { StoreMismatchPolicy } from '../identity/store-mismatch-policy';
import { STORE_MISMATCH_POLICIES } from '../identity/store-mismatch-policy';

/** The injection token of the module's options. */
export const PROJECTIONS_MODULE_OPTIONS = Symbol('PROJECTIONS_MODULE_OPTIONS');

/**
 * The injection token of an optional `ProcessorRunnerHost` for the module's
 * runners: when a module that imports the runtime provides it (as
 * `AgentLedgerModule` does), the projections join the runtime's runners
 * instead of reading each store a second time.
 */
export const PROCESSOR_RUNNER_HOST = Symbol('PROCESSOR_RUNNER_HOST');

/** Options of `ProjectionsModule.forRoot`. */
export interface ProjectionsModuleOptions {
  /**
   * The read models' SQLite file, separate from the event store's. Required:
   * there is no default, so that a host's read models never land in the
   * agent-ledger service's `./data/read-models.sqlite`.
   */
  readonly databasePath: string;
  /**
   * The event stores to project, each with a stable name used in checkpoints
   * (e.g. `[{ name: 'runs', store: runStore }, { name: 'audit', store: auditStore }]`
   * when the audit streams live apart; one source when they share a store).
   * The module never closes them.
   */
  readonly sources: readonly ProjectionSource[];
  /**
   * Start one runner per source when the application boots (and stop them at
   * shutdown). Turn it off for a process that only reads or only rebuilds.
   * With a {@link PROCESSOR_RUNNER_HOST} (the runtime in the same process),
   * the projections join the host's runners instead, unless this is false.
   * @default true
   */
  readonly startRunners?: boolean;
  /**
   * What to do when the read models were made from other event stores than
   * `sources` (the database records each source's store identity): `refuse`
   * fails the module's start with `ReadModelStoreMismatchError`; `rebuild`
   * rebuilds every projection from the sources first (logged).
   * @default 'refuse'
   */
  readonly onStoreMismatch?: StoreMismatchPolicy;
  /** Batch size and retry delay of the runners. @default see ProjectionRunnerOptions */
  readonly runner?: Pick<ProjectionRunnerOptions, 'batchSize' | 'retryDelayMs'>;
}

/**
 * Checks the options at the boundary, with field-qualified messages.
 * @throws InvalidProjectionOptionError
 */
export function validateProjectionsModuleOptions(options: ProjectionsModuleOptions): void {
  if (typeof options.databasePath !== 'string' || options.databasePath.trim() === '') {
    throw new InvalidProjectionOptionError(
      'databasePath',
      `expected the read models' file, e.g. join(dataDir, 'read-models.sqlite') (there is no default, so that a host's read models never land in the agent-ledger service's ./data/read-models.sqlite), got ${JSON.stringify(options.databasePath) ?? String(options.databasePath)}`,
    );
  }
  if (!Array.isArray(options.sources) || options.sources.length === 0) {
    throw new InvalidProjectionOptionError('sources', 'expected at least one { name, store }');
  }
  const names = new Set<string>();
  options.sources.forEach((source, index) => {
    if (!isValidSourceName(source?.name)) {
      throw new InvalidProjectionOptionError(`sources[${index}].name`, 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    if (names.has(source.name)) throw new InvalidProjectionOptionError(`sources[${index}].name`, `duplicate source name "${source.name}"`);
    names.add(source.name);
    if (typeof source.store?.subscribeToAll !== 'function') {
      throw new InvalidProjectionOptionError(`sources[${index}].store`, 'expected an EventStore');
    }
  });
  if (options.onStoreMismatch !== undefined && !STORE_MISMATCH_POLICIES.includes(options.onStoreMismatch)) {
    throw new InvalidProjectionOptionError('onStoreMismatch', `expected one of ${STORE_MISMATCH_POLICIES.join(', ')}, got ${JSON.stringify(options.onStoreMismatch) ?? String(options.onStoreMismatch)}`);
  }
  if (options.startRunners !== undefined && typeof options.startRunners !== 'boolean') {
    throw new InvalidProjectionOptionError('startRunners', 'expected a boolean');
  }
}
