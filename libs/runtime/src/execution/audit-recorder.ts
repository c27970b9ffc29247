import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuditCommand, AuditEvent, RecordApprovalDecision, RecordAudit, RecordWriteResolution } from '@agent-ledger/domain';
import { AUDIT_EVENT_SCHEMA_VERSIONS, auditDecider, foldEvents, isAuditEventType } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import { toDomainEvents, toEventData } from './domain-event-codec';
import { AUDIT_EVENT_STORE } from './event-store.tokens';
import { auditStreamName } from './run-streams';
import { RuntimeMetrics } from './runtime-metrics';

/** What the audit of one step says. */
export type AuditEntry = RecordAudit['data'];

const MAX_CONFLICT_RETRIES = 3;

/**
 * Records a step's audit event on the run's audit stream (`audit-<runId>`).
 *
 * It never throws: it returns whether the event persisted, and logs and
 * counts when it did not. What a failure means is the caller's decision: for
 * a write it fails the run closed, for anything else the run goes on.
 */
@Injectable()
export class AuditRecorder {
  private readonly logger = new Logger(AuditRecorder.name);

  constructor(
    @Inject(AUDIT_EVENT_STORE) private readonly store: EventStore,
    private readonly metrics: RuntimeMetrics,
  ) {}

  /** @returns true when the audit event is stored (now, or already before). */
  record(entry: AuditEntry, now: number): Promise<boolean> {
    return this.append(entry.runId, `step ${entry.stepId}`, (at) => ({ type: 'RecordAudit', data: entry, metadata: { now: at } }), now);
  }

  /** Records an operator's statement about a write that was in flight. @returns whether it is stored. */
  recordWriteResolution(resolution: RecordWriteResolution['data'], now: number): Promise<boolean> {
    return this.append(resolution.runId, `the resolution of step ${resolution.stepId}`, (at) => ({ type: 'RecordWriteResolution', data: resolution, metadata: { now: at } }), now);
  }

  /** Records a person's decision on calls waiting for approval. @returns whether it is stored. */
  recordApprovalDecision(decision: RecordApprovalDecision['data'], now: number): Promise<boolean> {
    const what = `approval decision of round ${decision.round}`;
    return this.append(decision.runId, what, (at) => ({ type: 'RecordApprovalDecision', data: decision, metadata: { now: at } }), now);
  }

  private async append(runId: string, subject: string, command: (now: number) => AuditCommand, now: number): Promise<boolean> {
    const stream = auditStreamName(runId);
    try {
      for (let attempt = 0; ; attempt++) {
        const read = await this.store.readStream(stream);
        const state = foldEvents(auditDecider, toDomainEvents<AuditEvent>(read.events, isAuditEventType));
        const events = auditDecider.decide(command(now), state);
        if (events.length === 0) return true;
        const revision = read.streamExists ? read.currentRevision : ExpectedRevision.NO_STREAM;
        const nextRevision = revision === ExpectedRevision.NO_STREAM ? 0n : revision + 1n;
        try {
          await this.store.append(stream, toEventData(stream, nextRevision, events, AUDIT_EVENT_SCHEMA_VERSIONS, { correlationId: runId }), {
            expectedRevision: revision,
          });
          return true;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
        }
      }
    } catch (error) {
      this.metrics.increment('auditAppendFailures');
      this.logger.warn(`Audit event of ${subject} was not stored: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}
