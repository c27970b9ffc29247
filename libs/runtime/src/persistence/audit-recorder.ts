import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuditCommand, AuditDecision, AuditEvent, AuditState, DecisionStatement, RecordAudit } from '@agent-ledger/domain';
import { auditDecider, isAuditEventType, statementCommand, statementKey } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { deterministicEventId } from '@agent-ledger/event-store';
import type { CommandOutcome, DecidedCommand } from './decider-command-handler';
import { DeciderCommandHandler } from './decider-command-handler';
import { DeciderFailedError } from './decider-failed.error';
import { AUDIT_EVENT_STORE } from './event-store.tokens';
import { auditStreamName } from './run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** What the audit of one step says. */
export type AuditEntry = RecordAudit['data'];

/** A step's audit decided on its stream, not appended: the audit's part of a step's one append. */
export type DecidedAudit = DecidedCommand<AuditCommand, AuditState, AuditEvent, AuditDecision>;

const MAX_CONFLICT_RETRIES = 3;
/** Audit streams whose state is kept between appends (the most recently used), so that a step's audit does not read its whole stream. */
const CACHED_STREAMS = 4096;

/**
 * What became of a statement: `stored` now, `alreadyStored` (the chain held it
 * before: another caller stored it), or `notStored` (the store refused or
 * failed, or the audit decider refused it; logged and counted).
 */
export type StatementRecording = 'stored' | 'alreadyStored' | 'notStored';

/**
 * Records a step's audit event on the run's audit stream (`audit-<runId>`):
 * the audit decider behind the generic {@link DeciderCommandHandler}, with a
 * cache of the audit streams this process wrote last.
 *
 * It never throws: it returns whether the event persisted, and logs and
 * counts when it did not: `auditAppendFailures` when the store failed or
 * refused it, `auditCommandsRejected` when the audit decider refused the
 * command (a malformed entry, a conflicting statement), `deciderFailures`
 * when the decider threw (a bug). What a failure means is the caller's
 * decision: for a write it fails the run closed, for anything else the run
 * goes on.
 */
@Injectable()
export class AuditRecorder {
  private readonly logger = new Logger(AuditRecorder.name);
  private readonly handler: DeciderCommandHandler<AuditCommand, AuditState, AuditEvent, AuditDecision>;

  constructor(
    @Inject(AUDIT_EVENT_STORE) store: EventStore,
    private readonly metrics: RuntimeMetrics,
  ) {
    this.handler = new DeciderCommandHandler({
      name: AuditRecorder.name,
      store,
      decider: auditDecider,
      isEventType: isAuditEventType,
      maxConflictRetries: MAX_CONFLICT_RETRIES,
      metrics,
      cachedStreams: CACHED_STREAMS,
    });
  }

  /** @returns true when the audit event is stored (now, or already before). */
  async record(entry: AuditEntry, now: number): Promise<boolean> {
    const outcome = await this.append(entry.runId, `step ${entry.stepId}`, { type: 'RecordAudit', data: entry, metadata: { now } });
    return outcome !== null;
  }

  /**
   * Decides a step's audit on its stream as it stands (the cache's, else
   * read), without appending: the audit's part of the step's one append
   * (`StepAppender`). Null when it cannot be decided now (the stream could
   * not be read, the decider refused the entry or threw): nothing is counted
   * nor logged above debug here (a decider's throw included), the caller
   * records the audit on its own then ({@link record}), which decides again
   * and counts what fails, once.
   */
  async decideAudit(entry: AuditEntry, now: number): Promise<DecidedAudit | null> {
    const stream = auditStreamName(entry.runId);
    try {
      const snapshot = await this.handler.current(stream);
      const decided = this.handler.prepare(stream, { type: 'RecordAudit', data: entry, metadata: { now } }, snapshot, { correlationId: entry.runId }, 'leftToCaller');
      return decided.decision.kind === 'accepted' ? decided : null;
    } catch (error) {
      this.logger.debug(`The audit of step ${entry.stepId} of run ${entry.runId} could not be decided for its step's one append: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  /** The audit stream's state once a decided audit is stored. */
  auditCommitted(audit: DecidedAudit): void {
    this.handler.committed(audit.stream, audit);
  }

  /** Forgets the audit stream's state (an append decided on it was refused or failed). */
  forgetAudit(audit: DecidedAudit): void {
    this.handler.forget(audit.stream);
  }

  /**
   * Records the statement of a decision that took effect on a run, exactly
   * once: under an event id named after the decision (a retried or concurrent
   * append of it is a no-op in the store), and decided against the chain (a
   * statement already there records nothing; a different one for the same
   * decision is refused, logged and reported `notStored`).
   */
  async recordStatement(statement: DecisionStatement, now: number): Promise<StatementRecording> {
    const key = statementKey(statement);
    const stream = auditStreamName(statement.data.runId);
    const outcome = await this.append(statement.data.runId, `the statement of ${key}`, statementCommand(statement, now), deterministicEventId(`${stream}|statement|${key}`));
    if (outcome === null) return 'notStored';
    return outcome.appended.length > 0 ? 'stored' : 'alreadyStored';
  }

  /** The outcome of an accepted command, or null (logged and counted) when it is not stored. */
  private async append(
    runId: string,
    subject: string,
    command: AuditCommand,
    eventId?: string,
  ): Promise<CommandOutcome<AuditState, AuditEvent, AuditDecision> | null> {
    try {
      const outcome = await this.handler.handle(auditStreamName(runId), command, { causation: { correlationId: runId }, eventId });
      if (outcome.decision.kind === 'accepted') return outcome;
      this.metrics.increment('auditCommandsRejected');
      this.logger.error(`Audit event of ${subject} of run ${runId} was refused by the audit decider (${outcome.decision.error.code}): ${outcome.decision.error.message}`);
      return null;
    } catch (error) {
      // Logged and counted (`deciderFailures`) by the handler: a bug, not a store failure.
      if (error instanceof DeciderFailedError) return null;
      this.metrics.increment('auditAppendFailures');
      this.logger.warn(`Audit event of ${subject} was not stored: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }
}
