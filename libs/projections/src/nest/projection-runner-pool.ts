import type { OnApplicationBootstrap, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ProcessorRunnerHost } from '../runner/processor-runner-host';
import { ProjectionRunner } from '../runner/projection-runner';
import type { ProjectionRunnerStats } from '../runner/projection-runner';
import { ProjectionStore } from '../store/projection-store';
import type { ProjectionsModuleOptions } from './projections-module-options';
import { PROCESSOR_RUNNER_HOST, PROJECTIONS_MODULE_OPTIONS } from './projections-module-options';

/**
 * The module's runners, one per source: started at bootstrap (unless
 * `startRunners: false`), stopped at shutdown before the read-model database
 * is closed. When the application provides a {@link PROCESSOR_RUNNER_HOST}
 * (the runtime's processors, in `AgentLedgerModule`), each is the
 * projections' part of the host's runner of that store: the store is read
 * once per process, and the host starts and stops the runner.
 */
@Injectable()
export class ProjectionRunnerPool implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Projections');
  /** The runners, in the order of the sources. */
  readonly runners: readonly ProjectionRunner[];

  constructor(
    private readonly store: ProjectionStore,
    @Inject(PROJECTIONS_MODULE_OPTIONS) private readonly options: ProjectionsModuleOptions,
    @Optional() @Inject(PROCESSOR_RUNNER_HOST) host?: ProcessorRunnerHost,
  ) {
    const joined = host !== undefined && (options.startRunners ?? true);
    this.runners = options.sources.map(
      (source) =>
        new ProjectionRunner(store, source, {
          ...options.runner,
          ...(joined ? { host } : {}),
          onError: (error) => this.logger.error(`Projection runner of source "${source.name}" failed; retrying`, error instanceof Error ? error.stack : String(error)),
        }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.startRunners ?? true) await this.start();
  }

  /**
   * Starts every runner (idempotent).
   * @throws ProcessorStoreMismatchError when the read models recorded another store for a source
   */
  async start(): Promise<void> {
    for (const runner of this.runners) await runner.start();
  }

  /** Stops every runner after its batch in progress. */
  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  /** Processes everything stored now in every source, without following. */
  async catchUp(): Promise<void> {
    for (const runner of this.runners) await runner.catchUp();
  }

  /**
   * Waits, at most `timeoutMs`, until every runner that follows has applied
   * what its store holds now: for a read that missed a row the caller may
   * just have written (a run started a moment ago). Runners that do not
   * follow are not waited for (another process feeds the read models).
   * A runner's failure is not thrown here: the runner logs it (`onError`)
   * and retries; the read answers from what is there.
   * @returns whether every following runner caught up in time
   */
  async settled(timeoutMs: number): Promise<boolean> {
    const following = this.runners.filter((runner) => runner.stats().running);
    if (following.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const caughtUp = Promise.all(following.map((runner) => runner.catchUp())).then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([caughtUp, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Each runner's counters, by source name. */
  stats(): Record<string, ProjectionRunnerStats> {
    return Object.fromEntries(this.runners.map((r) => [r.source.name, r.stats()]));
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  onApplicationShutdown(): void {
    this.store.close();
  }
}
