import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { RunCommandOutcome } from '../persistence/run-command-processor';
import type { AuditEvent, RunEvent } from '@agent-ledger/domain';
import { auditStatementKey, isToolEffect, isWrite, runEventStatementKey, statementKey } from '@agent-ledger/domain';
import type { EventStore, EventSubscription, Position, RecordedEvent } from '@agent-ledger/event-store';
import { eventTypeFilter, parsePosition, pullBatches } from '@agent-ledger/event-store';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { DispatchRunCommand, RecordDecisionStatementCommand } from '../persistence/commands';
import type { StatementRecording } from '../persistence/audit-recorder';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from '../persistence/event-store.tokens';
import { auditStreamName } from '../persistence/run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { newSegmentOwner } from '../segment/segment-identity';
import type { SagaSource } from './audit-gap-ledger';
import { AuditGapLedger } from './audit-gap-ledger';
import { DECISION_EVENT_TYPES, ensureLedgerStores, STATEMENT_EVENT_TYPES } from './audit-gap-ledger-stores';
import type { AuditGapSagaOptions } from './audit-gap-saga.options';
import { AUDIT_GAP_SAGA_OPTIONS, checkAuditGapSagaOptions, DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS } from './audit-gap-saga.options';

/** The most events of one subscription applied to the ledger in one transaction. */
const SAGA_BATCH_SIZE = 500;

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
 * period, and otherwise sends `ReportAuditGap` through the CommandBus (the run
 * fails `AUDIT_MISSING`, not retryable; a settled run gets `AuditGapDetected`).
 *
 * It is fed by checkpointed subscriptions of the stores (writes from the run
 * store, audits from the audit store), and keeps its pending deadlines with
 * the checkpoints in SQLite: a process killed between a write and its audit,
 * restarted later, still fails that run. Its decisions are idempotent: two
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
export class AuditGapSaga implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuditGapSaga.name);
  private readonly name = newSegmentOwner('worker').replace(/^worker:/, 'audit-gap-saga:');
  private ledger: AuditGapLedger | null = null;
  private opening: Promise<AuditGapLedger> | null = null;
  private readonly subscriptions: EventSubscription[] = [];
  private readonly consumers: Promise<void>[] = [];
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<AuditGapCheck> | null = null;
  private stopped = false;

  constructor(
    private readonly commandBus: CommandBus,
    @Inject(RUN_EVENT_STORE) private readonly runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RuntimeMetrics,
    private readonly runs: RunCommandProcessor,
    @Inject(AUDIT_GAP_SAGA_OPTIONS) private readonly options: AuditGapSagaOptions,
  ) {}

  private get gracePeriodMs(): number {
    return this.options.gracePeriodMs ?? 60_000;
  }

  /** Opens the ledger and checks it against the stores before any part of the application starts (see {@link open}). */
  async onModuleInit(): Promise<void> {
    if (this.options.enabled === false) return;
    await this.open();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.enabled === false) return;
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /**
   * Opens the ledger and makes sure it was made from the saga's stores (their
   * identities, `ensureAuditGapLedgerStores`): on a mismatch it refuses, or
   * resets the ledger when `onStoreMismatch` is `reset`. Idempotent.
   *
   * @throws AuditGapLedgerStoreMismatchError when the ledger was made from other stores and `onStoreMismatch` is `refuse` (the ledger is closed again)
   */
  async open(): Promise<void> {
    await this.openLedger();
  }

  private openLedger(): Promise<AuditGapLedger> {
    this.opening ??= (async () => {
      const ledger = new AuditGapLedger(checkAuditGapSagaOptions({ ...this.options, enabled: true }).databasePath as string);
      try {
        await ensureLedgerStores(
          ledger,
          { runs: this.runStore, audit: this.auditStore },
          { onMismatch: this.options.onStoreMismatch, now: this.clock.now(), log: (message) => this.logger.warn(message) },
        );
      } catch (error) {
        ledger.close();
        throw error;
      }
      return ledger;
    })().catch((error: unknown) => {
      this.opening = null;
      throw error;
    });
    return this.opening;
  }

  /** Starts following the stores from the saga's checkpoints (opening and checking the ledger first if {@link open} was not called). */
  async start(): Promise<void> {
    if (this.ledger !== null) return;
    const ledger = await this.openLedger();
    if (this.ledger !== null) return;
    this.stopped = false;
    this.ledger = ledger;
    this.follow('writes', this.runStore, ['ToolExecuted'], (event, position) => {
      const data = event.data as { runId?: unknown; stepId?: unknown; toolName?: unknown; effect?: unknown; executedAt?: unknown };
      if (event.type !== 'ToolExecuted' || !isToolEffect(data.effect) || !isWrite(data.effect)) return ledger.skip('writes', position);
      const executedAt = typeof data.executedAt === 'number' ? data.executedAt : this.clock.now();
      ledger.writeExecuted(
        { runId: String(data.runId), stepId: String(data.stepId), toolName: String(data.toolName), effect: data.effect, deadlineAt: executedAt + this.gracePeriodMs },
        position,
      );
    });
    this.follow('audits', this.auditStore, ['AuditRecorded'], (event, position) => {
      const data = event.data as { runId?: unknown; stepId?: unknown; effect?: unknown };
      if (event.type !== 'AuditRecorded' || !isToolEffect(data.effect) || !isWrite(data.effect)) return ledger.skip('audits', position);
      ledger.auditRecorded(String(data.runId), String(data.stepId), position);
    });
    this.follow('decisions', this.runStore, DECISION_EVENT_TYPES, (event, position) => {
      if (!(DECISION_EVENT_TYPES as readonly string[]).includes(event.type)) return ledger.skip('decisions', position);
      const decision = runEventStatementKey({ type: event.type, data: event.data } as unknown as RunEvent);
      if (decision === null) return ledger.skip('decisions', position);
      const data = event.data as { runId?: unknown; decidedAt?: unknown; submittedAt?: unknown; requeuedAt?: unknown };
      const at = [data.decidedAt, data.submittedAt, data.requeuedAt].find((t): t is number => typeof t === 'number') ?? this.clock.now();
      ledger.decisionTaken({ runId: String(data.runId), decision, deadlineAt: at + this.gracePeriodMs }, position);
    });
    this.follow('statements', this.auditStore, STATEMENT_EVENT_TYPES, (event, position) => {
      if (!(STATEMENT_EVENT_TYPES as readonly string[]).includes(event.type)) return ledger.skip('statements', position);
      const decision = auditStatementKey({ type: event.type, data: event.data } as unknown as AuditEvent);
      if (decision === null) return ledger.skip('statements', position);
      ledger.decisionStated(String((event.data as { runId?: unknown }).runId), decision, position);
    });
    const interval = this.options.checkIntervalMs ?? DEFAULT_AUDIT_GAP_CHECK_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => void this.checkDeadlines().catch((e: unknown) => this.logger.error(`Deadline check failed: ${String(e)}`)), interval);
      this.timer.unref();
    }
  }

  /** Stops following; the checkpoints and pending deadlines stay on disk. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.subscriptions.splice(0).map((s) => s.close()));
    await Promise.all(this.consumers.splice(0));
    await this.checking?.catch(() => undefined);
    const opened = await this.opening?.catch(() => null);
    opened?.close();
    this.ledger = null;
    this.opening = null;
  }

  /** How many decisions wait for their statement. */
  pendingStatementCount(): number {
    return this.ledger?.pendingStatementCount() ?? 0;
  }

  /** How many writes wait for their audit. */
  pendingCount(): number {
    return this.ledger?.pendingCount() ?? 0;
  }

  /** The position the saga applied last from each source (for tests and diagnostics). */
  checkpoint(source: SagaSource): string | undefined {
    return this.ledger?.checkpoint(source);
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
    const ledger = this.ledger;
    const result: AuditGapCheck = { reported: [], found: [], statements: [] };
    if (ledger === null) return result;
    await this.checkStatements(ledger, result);
    for (const write of ledger.due(this.clock.now())) {
      if (await this.auditExists(write.runId, write.stepId)) {
        ledger.resolve(write.runId, write.stepId);
        result.found.push(write.stepId);
        continue;
      }
      const outcome: RunCommandOutcome = await this.commandBus.execute(
        new DispatchRunCommand({ type: 'ReportAuditGap', data: { runId: write.runId, stepId: write.stepId, detectedBy: this.name }, metadata: { now: this.clock.now() } }),
      );
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
      const recording: StatementRecording = await this.commandBus.execute(new RecordDecisionStatementCommand(statement, this.clock.now()));
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
    return read.events.some((event) => (event.data as { stepId?: unknown }).stepId === stepId);
  }

  private follow(source: SagaSource, store: EventStore, types: readonly string[], apply: (event: RecordedEvent, position: string) => void): void {
    const ledger = this.ledger as AuditGapLedger;
    const consume = async () => {
      let delayMs = 100;
      while (!this.stopped) {
        const checkpoint = ledger.checkpoint(source);
        const after: Position | undefined = checkpoint === undefined ? undefined : parsePosition(checkpoint);
        const subscription = store.subscribeToAll({ filter: eventTypeFilter(...types), after });
        this.subscriptions.push(subscription);
        try {
          // The events available at once are applied in one transaction: one commit per batch, not per event.
          for await (const batch of pullBatches(subscription, SAGA_BATCH_SIZE)) {
            ledger.inTransaction(() => {
              for (const event of batch) apply(event, event.position);
            });
            delayMs = 100;
          }
        } catch (error) {
          if (this.stopped) return;
          this.logger.error(`The ${source} subscription failed; following again in ${delayMs} ms: ${error instanceof Error ? error.message : String(error)}`);
          await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
          delayMs = Math.min(delayMs * 2, 5000);
        }
      }
    };
    this.consumers.push(consume());
  }
}
