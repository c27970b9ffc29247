import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuditCommand, AuditEvent, AuditState, DecisionStatement, RecordAudit } from '@agent-ledger/domain';
import { auditDecider, foldEvents, isAuditEventType, statementCommand, statementKey } from '@agent-ledger/domain';
import type { CurrentRevision, EventStore } from '@agent-ledger/event-store';
import { deterministicEventId, ExpectedRevision, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import { toDomainEvents, toEventData } from './domain-event-codec';
import { AUDIT_EVENT_STORE } from './event-store.tokens';
import { auditStreamName } from './run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** What the audit of one step says. */
export type AuditEntry = RecordAudit['data'];

const MAX_CONFLICT_RETRIES = 3;
/** Audit streams whose state is kept between appends (the most recently used). */
const CACHED_STREAMS = 4096;

/**
 * What became of a statement: `stored` now, `alreadyStored` (the chain held it
 * before: another caller stored it), or `notStored` (the store refused or
 * failed; logged and counted).
 */
export type StatementRecording = 'stored' | 'alreadyStored' | 'notStored';

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

  /**
   * Records the statement of a decision that took effect on a run, exactly
   * once: under an event id named after the decision (a retried or concurrent
   * append of it is a no-op in the store), and decided against the chain (a
   * statement already there records nothing; a different one for the same
   * decision is refused, logged and reported `notStored`).
   */
  async recordStatement(statement: DecisionStatement, now: number): Promise<StatementRecording> {
    const key = statementKey(statement);
    let appended = false;
    const stored = await this.append(statement.data.runId, `the statement of ${key}`, (at) => statementCommand(statement, at), now, {
      eventId: deterministicEventId(`${auditStreamName(statement.data.runId)}|statement|${key}`),
      onAppend: () => (appended = true),
    });
    if (!stored) return 'notStored';
    return appended ? 'stored' : 'alreadyStored';
  }

  private async append(
    runId: string,
    subject: string,
    command: (now: number) => AuditCommand,
    now: number,
    statement?: { readonly eventId: string; readonly onAppend: () => void },
  ): Promise<boolean> {
    const stream = auditStreamName(runId);
    try {
      let current = this.known.get(stream) ?? (await this.load(stream));
      for (let attempt = 0; ; attempt++) {
        const events = auditDecider.decide(command(now), current.state);
        if (events.length === 0) return true;
        const nextRevision = current.revision === ExpectedRevision.NO_STREAM ? 0n : current.revision + 1n;
        try {
          const data = toEventData(stream, nextRevision, events, { correlationId: runId });
          const result = await this.store.append(stream, statement === undefined ? data : data.map((event) => ({ ...event, id: statement.eventId })), {
            expectedRevision: current.revision,
          });
          if (statement === undefined) {
            this.remember(stream, { state: events.reduce(auditDecider.evolve, current.state), revision: result.nextExpectedRevision });
          } else {
            // Under the decision's id, the store answers a concurrent caller's statement (its own recordedAt, so its own
            // hash) as if it were ours: what is stored is read back, and counts as this call's only if it is ours.
            this.known.delete(stream);
            // A failed read back leaves it counted as ours: it is stored either way.
            const ours = await this.store
              .readStream(stream, { fromRevision: nextRevision, maxCount: 1 })
              .then((stored) => (stored.events[0]?.data as { hash?: unknown } | undefined)?.hash === events[0]?.data.hash)
              .catch(() => true);
            if (ours) statement.onAppend();
          }
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
