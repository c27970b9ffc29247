import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { RunEvent } from '@agent-ledger/domain';
import { auditStatementKey, decodeAuditEvent, decodeRunEvent, isWrite, runEventStatementKey, statementKey } from '@agent-ledger/domain';
import type { EventProcessor, EventStore, RecordedEvent } from '@agent-ledger/event-store';
import { eventTypeFilter } from '@agent-ledger/event-store';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { AuditRecorder } from '../persistence/audit-recorder';
import { EventProcessors } from '../persistence/event-processors';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from '../persistence/event-store.tokens';
import { auditStreamName } from '../persistence/run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { newSegmentOwner } from '../segment/segment-identity';
import type { SagaSource } from './audit-gap-ledger';
import { AuditGapLedger } from './audit-gap-ledger';
import { ensureLedgerStores, SAGA_EVENT_TYPES } from './audit-gap-ledger-stores';
import type { AuditGapSagaOptions } from './audit-gap-saga.options';
import { AUDIT_GAP_SAGA_OPTIONS, DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS } from './audit-gap-saga.options';
import { importLegacyLedger, LegacyLedgerFile, SAGA_SOURCE_ROLES, sagaProcessorName } from './legacy-ledger-file';

/** What one deadline check did. */
export interface AuditGapCheck {
  /** Gaps reported (`ReportAuditGap` accepted or already recorded). */
  readonly reported: string[];
  /** Writes whose audit was found in the audit stream after all (the audit subscription lagged). */
  readonly found: string[];
  /** Decisions whose statement this check stored late (`<runId> <decision>`). */
  readonly statements: string[];
}


/**
 * The audit-gap saga: a process manager that expects, for every
 * `ToolExecuted` of a write, the matching `AuditRecorded` within a grace
 * period, and otherwise sends `ReportAuditGap` to the run's decider (the run
 * fails `AUDIT_MISSING`, not retryable; a settled run gets `AuditGapDetected`).
 *
 * It is four processors of the process's one reader per store
 * ({@link EventProcessors}: writes and decisions from the run store, audits
 * and statements from the audit store), and keeps its pending deadlines in the
 * processors' database, written with their checkpoints in each batch's
 * transaction: a process killed between a write and its audit, restarted
 * later, still fails that run. Its decisions are idempotent: two
 * instances, or a replay of history, report each gap once (the run's decider
 * records one `AuditGapDetected` per step).
 *
 * It reconciles decisions the same way: for every decision that took effect
 * on a run (`ApprovalGranted`, `ApprovalDenied`, `InputSubmitted`, a
 * `RunRequeuedByOperator` with a resolution) it expects the statement in the
 * run's audit chain within the grace period, and otherwise stores it, late
 * and once (the audit decider records nothing when it is there). This covers
 * the runs that no segment resumes, a denial that ended the run or a cancel
 * that landed right after the decision; a statement it cannot store is tried
 * again one grace period later.
 */
@Injectable()
export class AuditGapSaga implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AuditGapSaga.name);
  private readonly name = newSegmentOwner('worker').replace(/^worker:/, 'audit-gap-saga:');
  /** Its tables in the processors' database; null while the saga is disabled. */
  private readonly ledger: AuditGapLedger | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<AuditGapCheck> | null = null;

  constructor(
    @Inject(RUN_EVENT_STORE) private readonly runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
    private readonly runs: RunCommandProcessor,
    private readonly recorder: AuditRecorder,
    @Inject(AUDIT_GAP_SAGA_OPTIONS) private readonly options: AuditGapSagaOptions,
    private readonly processors: EventProcessors,
  ) {
    if (options.enabled === false) return;
    const ledger = new AuditGapLedger(processors.database.sqlite);
    this.ledger = ledger;
    for (const source of ['writes', 'decisions', 'audits', 'statements'] as const) processors.register(SAGA_SOURCE_ROLES[source], this.processorOf(source, ledger));
    processors.prepare(() => this.importLegacyFile());
  }

  private get gracePeriodMs(): number {
    return this.options.gracePeriodMs ?? 60_000;
  }

  /** Imports a ledger file of an earlier version and checks the processors' database against the stores, before any part of the application starts (see {@link open}). */
  async onModuleInit(): Promise<void> {
    await this.open();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  /** Stops the deadline checks before the processors' database closes. */
  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /**
   * Makes the saga's state ready: the processors' database opens, and first a
   * ledger file of an earlier version at `databasePath` (a file of its own, or
   * the processors' database with its own checkpoint tables still there) is
   * checked against the saga's stores (their identities, as
   * `ensureAuditGapLedgerStores`: on a mismatch it refuses, or resets the
   * file when `onStoreMismatch` is `reset`) and imported into the processors'
   * database (logged); then the processors' database is checked against the
   * stores. Idempotent.
   *
   * @throws AuditGapLedgerStoreMismatchError when the ledger file was made from other stores and `onStoreMismatch` is `refuse`
   * @throws ProcessorStoreMismatchError when the processors' database was made from other stores and its `onStoreMismatch` is `refuse`
   */
  async open(): Promise<void> {
    if (this.ledger === null) return;
    await this.processors.open();
  }

  /** The import of a ledger file of an earlier version, before the processors' database is checked (see {@link open}). */
  private async importLegacyFile(): Promise<void> {
    const path = this.options.databasePath;
    if (path === undefined) return;
    const legacy = LegacyLedgerFile.openIfAny(path);
    if (legacy === null) return;
    if (this.processors.database.path === ':memory:') {
      // Importing into a database gone at exit would lose the ledger's pending deadlines, and the file with them.
      legacy.close();
      this.logger.warn(`The audit-gap saga's ledger ${legacy.path} of an earlier version is not imported: the processors' database is in memory (give processors.databasePath a file)`);
      return;
    }
    try {
      await ensureLedgerStores(
        legacy,
        { runs: this.runStore, audit: this.auditStore },
        { onMismatch: this.options.onStoreMismatch, now: this.clock.now(), log: (message) => this.logger.warn(message) },
      );
    } finally {
      legacy.close();
    }
    const database = this.processors.database;
    importLegacyLedger(database, path, (role) => this.processors.sourceName(role));
    this.logger.log(
      legacy.path === database.path
        ? `The audit-gap saga's ledger ${legacy.path} is now the processors' database: its checkpoints moved to processor_checkpoints`
        : `The audit-gap saga's ledger ${legacy.path} was imported into the processors' database ${database.path} and renamed ${legacy.path}.migrated`,
    );
  }

  /** Starts the deadline checks and the process's processors (opening first if {@link open} was not called). */
  async start(): Promise<void> {
    if (this.ledger === null) return;
    await this.open();
    await this.processors.start();
    const interval = this.options.checkIntervalMs ?? DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS;
    if (interval > 0 && this.timer === null) {
      this.timer = setInterval(() => void this.checkDeadlines().catch((e: unknown) => this.logger.error(`Deadline check failed: ${String(e)}`)), interval);
      this.timer.unref();
    }
  }

  /** Stops the deadline checks; the pending deadlines stay in the processors' database (whose runners stop with the module). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.checking?.catch(() => undefined);
  }

  /** How many decisions wait for their statement. */
  pendingStatementCount(): number {
    return this.openLedger()?.pendingStatementCount() ?? 0;
  }

  /** How many writes wait for their audit. */
  pendingCount(): number {
    return this.openLedger()?.pendingCount() ?? 0;
  }

  /**
   * The position of the last event one of the saga's processors applied (an
   * event of its types: its checkpoint in the processors' database may be
   * further on). For tests and diagnostics.
   */
  checkpoint(source: SagaSource): string | undefined {
    if (this.openLedger() === null) return undefined;
    return this.processors.database.lastApplied(sagaProcessorName(source), this.processors.sourceName(SAGA_SOURCE_ROLES[source])) ?? undefined;
  }

  /** The ledger while the processors' database is open. */
  private openLedger(): AuditGapLedger | null {
    return this.ledger !== null && this.ledger.open ? this.ledger : null;
  }

  /**
   * Reports every pending write whose grace period is over. Before
   * reporting, it reads the audit stream itself, so a lagging audit
   * subscription never fails a run whose audit is there.
   */
  checkDeadlines(): Promise<AuditGapCheck> {
    this.checking ??= this.check().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async check(): Promise<AuditGapCheck> {
    const ledger = this.openLedger();
    const result: AuditGapCheck = { reported: [], found: [], statements: [] };
    if (ledger === null) return result;
    await this.checkStatements(ledger, result);
    for (const write of ledger.due(this.clock.now())) {
      if (await this.auditExists(write.runId, write.stepId)) {
        ledger.resolve(write.runId, write.stepId);
        result.found.push(write.stepId);
        continue;
      }
      const outcome = await this.runs.process({
        type: 'ReportAuditGap',
        data: { runId: write.runId, stepId: write.stepId, detectedBy: this.name },
        metadata: { now: this.clock.now() },
      });
      if (outcome.decision.kind === 'rejected') {
        this.logger.error(`Audit gap of ${write.stepId} could not be reported: ${outcome.decision.error.message}`);
      } else {
        this.logger.warn(`Write ${write.stepId} (${write.toolName}, ${write.effect}) has no audit event after ${this.gracePeriodMs} ms: reported`);
        result.reported.push(write.stepId);
        this.metrics.increment('auditGapsReported');
      }
      ledger.resolve(write.runId, write.stepId);
    }
    return result;
  }

  /** Stores, late, the statement of every decision whose grace period is over and whose statement was not seen. */
  private async checkStatements(ledger: AuditGapLedger, result: AuditGapCheck): Promise<void> {
    for (const pending of ledger.dueStatements(this.clock.now())) {
      const { state } = await this.runs.load(pending.runId);
      const statement = state.statements.find((s) => statementKey(s) === pending.decision);
      if (statement === undefined) {
        this.logger.error(`Run ${pending.runId} holds no decision ${pending.decision} to state; not watched any more`);
        ledger.resolveStatement(pending.runId, pending.decision);
        continue;
      }
      const recording = await this.recorder.recordStatement(statement, this.clock.now());
      if (recording === 'notStored') {
        this.metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'failed' });
        this.logger.error(`The statement of ${pending.decision} of run ${pending.runId} could not be stored; trying again in ${this.gracePeriodMs} ms`);
        ledger.postponeStatement(pending.runId, pending.decision, this.clock.now() + this.gracePeriodMs);
        continue;
      }
      if (recording === 'stored') {
        this.metrics.incrementLabelled('decisionStatements', { kind: statement.kind, outcome: 'late' });
        this.logger.warn(`The statement of ${pending.decision} of run ${pending.runId} was missing after ${this.gracePeriodMs} ms: stored late`);
        result.statements.push(`${pending.runId} ${pending.decision}`);
      }
      ledger.resolveStatement(pending.runId, pending.decision);
    }
  }

  private async auditExists(runId: string, stepId: string): Promise<boolean> {
    const read = await this.auditStore.readStream(auditStreamName(runId));
    return read.events.some((recorded) => {
      // Only the step's own audit record answers for it (an input answer or a resolution may name the step too).
      const event = recorded.type === 'AuditRecorded' ? decodeAuditEvent(recorded) : null;
      return event?.type === 'AuditRecorded' && event.data.stepId === stepId;
    });
  }

  /** One of the saga's processors: applies its events to the ledger, in the batch's transaction. */
  private processorOf(source: SagaSource, ledger: AuditGapLedger): EventProcessor {
    const apply = {
      writes: (recorded: RecordedEvent) => {
        const event = decodeRunEvent(recorded);
        if (event?.type !== 'ToolExecuted' || !isWrite(event.data.effect)) return;
        const { runId, stepId, toolName, effect, executedAt } = event.data;
        ledger.writeExecuted({ runId, stepId, toolName, effect, deadlineAt: executedAt + this.gracePeriodMs });
      },
      audits: (recorded: RecordedEvent) => {
        const event = decodeAuditEvent(recorded);
        if (event?.type !== 'AuditRecorded' || event.data.effect === null || !isWrite(event.data.effect)) return;
        ledger.auditRecorded(event.data.runId, event.data.stepId);
      },
      decisions: (recorded: RecordedEvent) => {
        const event = decodeRunEvent(recorded);
        const decision = event === null ? null : runEventStatementKey(event);
        const at = event === null ? null : decisionTimeOf(event);
        if (event === null || decision === null || at === null) return;
        ledger.decisionTaken({ runId: event.data.runId, decision, deadlineAt: at + this.gracePeriodMs });
      },
      statements: (recorded: RecordedEvent) => {
        const event = decodeAuditEvent(recorded);
        const decision = event === null ? null : auditStatementKey(event);
        if (event === null || decision === null) return;
        ledger.decisionStated(event.data.runId, decision);
      },
    }[source];
    return {
      name: sagaProcessorName(source),
      filter: eventTypeFilter(...SAGA_EVENT_TYPES[source]),
      apply: (events) => {
        for (const event of events) apply(event);
      },
      // The four processors' rows are tied (a write and its audit leave together): a reset of one forgets them all.
      reset: () => ledger.reset(),
    };
  }
}

/** When a decision that calls for a statement took effect on its run; null for any other event. */
function decisionTimeOf(event: RunEvent): number | null {
  switch (event.type) {
    case 'RunRequested':
      return event.data.requestedAt;
    case 'ApprovalGranted':
    case 'ApprovalDenied':
      return event.data.decidedAt;
    case 'InputSubmitted':
      return event.data.submittedAt;
    case 'RunRequeuedByOperator':
      return event.data.requeuedAt;
    default:
      return null;
  }
}
