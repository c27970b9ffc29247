import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { EventProcessor, EventStore, ProcessorRunnerStats } from '@agent-ledger/event-store';
import { ProcessorDatabase, ProcessorRunner, ProcessorStoreMismatchError } from '@agent-ledger/event-store';
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
  private opening: Promise<void> | null = null;
  private readonly registered: string[] = [];
  private readonly preparations: Array<() => Promise<void>> = [];

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
    this.registered.push(processor.name);
  }

  /**
   * Adds work to do once before the stores are checked and the runners start
   * (an import of state an earlier version kept elsewhere). Call it before
   * {@link open}, in a constructor.
   */
  prepare(step: () => Promise<void>): void {
    this.preparations.push(step);
  }

  private destroyed = false;

  /** Checks the database against the stores before any part of the application starts (see {@link open}). */
  async onModuleInit(): Promise<void> {
    await this.open();
  }

  /**
   * Checks that the database was made from the runtime's stores (each
   * runner's identity check). On a mismatch it refuses, or, when
   * `onStoreMismatch` is `reset`, resets every runner's processors and
   * checkpoints (the processors' rows may be tied across stores, as the
   * saga's writes and audits are) and logs it. Idempotent.
   * @throws ProcessorStoreMismatchError on a mismatch with `refuse`
   */
  open(): Promise<void> {
    this.opening ??= this.checkStores().catch((error: unknown) => {
      this.opening = null;
      throw error;
    });
    return this.opening;
  }

  private async checkStores(): Promise<void> {
    for (const step of this.preparations) await step();
    try {
      for (const runner of this.runners.values()) await runner.open();
    } catch (error) {
      if (!(error instanceof ProcessorStoreMismatchError) || this.options.onStoreMismatch !== 'reset') throw error;
      for (const runner of this.runners.values()) await runner.reset();
      for (const runner of this.runners.values()) await runner.open();
      this.logger.warn(
        `${error.message.replace(/: reset it.*$/, '')}: reset it (onStoreMismatch: reset); the processors (${this.names().join(', ')}) follow the stores from their start`,
      );
    }
  }

  /** The name of the runner's source that reads the store of a role (`runs` for both when the audit streams live in the run store). */
  sourceName(role: ProcessorSource): ProcessorSource {
    return role === 'audit' && this.auditStore === this.runStore ? 'runs' : role;
  }

  /** Starts every runner (idempotent). */
  start(): Promise<void> {
    this.starting ??= (async () => {
      await this.open();
      // The module may be destroyed while this start waited (a start refused by another provider): start nothing then.
      if (this.destroyed) return;
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
    this.destroyed = true;
    await this.starting?.catch(() => undefined); // a failed start was logged by its caller
    await Promise.all([...this.runners.values()].map((runner) => runner.stop()));
    this.starting = null;
  }

  /** Closes the database, after every provider's `onModuleDestroy` (the runners, the saga's deadline checks) is done. */
  onApplicationShutdown(): void {
    this.opened?.close();
  }

  private names(): string[] {
    return [...this.registered];
  }

  /**
   * The runner that reads the store of a role (created with the first use;
   * one for both roles when the audit streams live in the run store): a
   * host adds processors kept in a state store of its own to it
   * (`runner.add(processor, stateStore)`, before {@link open}), as the read
   * models do when they run in the same process, so that the store is read
   * once.
   */
  runnerOf(source: ProcessorSource): ProcessorRunner {
    // One store in both roles: one runner reads it.
    const key = this.sourceName(source);
    let runner = this.runners.get(key);
    if (runner === undefined) {
      runner = new ProcessorRunner({
        store: key === 'runs' ? this.runStore : this.auditStore,
        source: key,
        database: this.database,
        // A mismatch is handled here, for every runner at once (see open).
        onStoreMismatch: 'refuse',
        onError: (error, failure) =>
          this.logger.error(
            `The processors of the ${key} store failed${failure.retryInMs === null ? '' : `; reading again from their checkpoints in ${failure.retryInMs} ms (attempt ${failure.attempt})`}: ${error instanceof Error ? error.message : String(error)}`,
          ),
      });
      this.runners.set(key, runner);
    }
    return runner;
  }
}
