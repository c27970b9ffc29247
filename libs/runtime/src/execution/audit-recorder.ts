import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuditCommand, AuditEvent, AuditState, RecordApprovalDecision, RecordAudit, RecordWriteResolution } from '@agent-ledger/domain';
import { auditDecider, foldEvents, isAuditEventType } from '@agent-ledger/domain';
import type { CurrentRevision, EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import { toDomainEvents, toEventData } from './domain-event-codec';
import { AUDIT_EVENT_STORE } from './event-store.tokens';
import { auditStreamName } from './run-streams';
import { RuntimeMetrics } from './runtime-metrics';

/** What the audit of one step says. */
export type AuditEntry = RecordAudit['data'];

const MAX_CONFLICT_RETRIES = 3;
/** Audit streams whose state is kept between appends (the most recently used). */
const CACHED_STREAMS = 4096;

/** An audit stream's state as of a revision, as this process last wrote or read it. */
interface KnownAuditStream {
  readonly state: AuditState;
  readonly revision: CurrentRevision;
}

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
  /**
   * The state of the audit streams this process appended to last, so that a
   * step's audit does not read its whole stream again. It is trusted until the
   * store refuses an append (another process or call wrote in between): the
   * stream is then read again, as without it.
   */
  private readonly known = new Map<string, KnownAuditStream>();

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
      let current = this.known.get(stream) ?? (await this.load(stream));
      for (let attempt = 0; ; attempt++) {
        const events = auditDecider.decide(command(now), current.state);
        if (events.length === 0) return true;
        const nextRevision = current.revision === ExpectedRevision.NO_STREAM ? 0n : current.revision + 1n;
        try {
          const result = await this.store.append(stream, toEventData(stream, nextRevision, events, { correlationId: runId }), {
            expectedRevision: current.revision,
          });
          this.remember(stream, { state: events.reduce(auditDecider.evolve, current.state), revision: result.nextExpectedRevision });
          return true;
        } catch (error) {
          this.known.delete(stream);
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
          current = await this.load(stream);
        }
      }
    } catch (error) {
      this.metrics.increment('auditAppendFailures');
      this.logger.warn(`Audit event of ${subject} was not stored: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  private async load(stream: string): Promise<KnownAuditStream> {
    const read = await this.store.readStream(stream);
    const known = {
      state: foldEvents(auditDecider, toDomainEvents<AuditEvent>(read.events, isAuditEventType)),
      revision: read.streamExists ? read.currentRevision : ExpectedRevision.NO_STREAM,
    };
    this.remember(stream, known);
    return known;
  }

  /** Keeps the newest state of a stream (a slower concurrent call never replaces a newer one), the most recently used first. */
  private remember(stream: string, known: KnownAuditStream): void {
    const previous = this.known.get(stream);
    if (previous !== undefined && previous.revision !== ExpectedRevision.NO_STREAM && (known.revision === ExpectedRevision.NO_STREAM || known.revision < previous.revision)) return;
    this.known.delete(stream);
    this.known.set(stream, known);
    if (this.known.size > CACHED_STREAMS) this.known.delete(this.known.keys().next().value as string);
  }
}
