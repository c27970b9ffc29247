import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { EventProcessor, EventStore, ProcessorRunnerStats } from '@agent-ledger/event-store';
import { ProcessorDatabase, ProcessorRunner } from '@agent-ledger/event-store';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from './event-store.tokens';
import type { ProcessorsOptions } from './event-processors.options';
import { PROCESSORS_OPTIONS } from './event-processors.options';

/** Which of the runtime's stores a processor reads. */
export type ProcessorSource = 'runs' | 'audit';

/**
 * The process's event processors: one {@link ProcessorDatabase} and one
 * {@link ProcessorRunner} per store (one only when the audit streams live in
 * the run store), so `$all` is read once per store whatever the number of
 * processors. Processors register in their constructor, before any start;
 * the first {@link start} starts every runner. At shutdown the runners stop
 * (after their batch in progress), then the database closes.
 */
@Injectable()
export class EventProcessors implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('EventProcessors');
  /** The processors' database, opened with the first use. */
  private opened: ProcessorDatabase | null = null;
  private readonly runners = new Map<ProcessorSource, ProcessorRunner>();
  private starting: Promise<void> | null = null;

  constructor(
    @Inject(RUN_EVENT_STORE) private readonly runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
    @Inject(PROCESSORS_OPTIONS) private readonly options: ProcessorsOptions,
  ) {}

  /** The processors' database (opened on first use), where processors keep their tables. */
  get database(): ProcessorDatabase {
    this.opened ??= ProcessorDatabase.open({ path: this.options.databasePath ?? ':memory:' });
    return this.opened;
  }

  /**
   * Adds a processor to the runner of a store. Call it before {@link start}
   * (processors register in their constructor).
   */
  register(source: ProcessorSource, processor: EventProcessor): void {
    this.runnerOf(source).add(processor);
  }

  /** Checks the database against the stores before any part of the application starts (see {@link open}). */
  async onModuleInit(): Promise<void> {
    await this.open();
  }

  /**
   * Checks that the database was made from the runtime's stores (each
   * runner's identity check): on a mismatch it refuses, or resets the
   * processors' state when `onStoreMismatch` is `reset`.
   * @throws ProcessorStoreMismatchError on a mismatch with `refuse`
   */
  async open(): Promise<void> {
    for (const runner of this.runners.values()) await runner.open();
  }

  /** Starts every runner (idempotent). */
  start(): Promise<void> {
    this.starting ??= (async () => {
      for (const runner of this.runners.values()) await runner.start();
    })().catch((error: unknown) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  /** Applies everything stored now in every store, without following (for tools and tests; not while following). */
  async catchUp(): Promise<void> {
    for (const runner of this.runners.values()) await runner.catchUp();
  }

  /** Each runner's counters, by source. */
  stats(): Partial<Record<ProcessorSource, ProcessorRunnerStats>> {
    return Object.fromEntries([...this.runners].map(([source, runner]) => [source, runner.stats()]));
  }

  /** Stops every runner after its batch in progress. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.runners.values()].map((runner) => runner.stop()));
    this.starting = null;
  }

  onApplicationShutdown(): void {
    this.opened?.close();
  }

  private runnerOf(source: ProcessorSource): ProcessorRunner {
    // One store in both roles: one runner reads it.
    const key: ProcessorSource = source === 'audit' && this.auditStore === this.runStore ? 'runs' : source;
    let runner = this.runners.get(key);
    if (runner === undefined) {
      runner = new ProcessorRunner({
        store: key === 'runs' ? this.runStore : this.auditStore,
        source: key,
        database: this.database,
        onStoreMismatch: this.options.onStoreMismatch,
        onError: (error, failure) =>
          this.logger.error(
            `The processors of the ${key} store failed${failure.retryInMs === null ? '' : `; reading again from their checkpoints in ${failure.retryInMs} ms (attempt ${failure.attempt})`}: ${error instanceof Error ? error.message : String(error)}`,
          ),
        log: (message) => this.logger.warn(message),
      });
      this.runners.set(key, runner);
    }
    return runner;
  }
}
