import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RunCommand, RunDecision, RunEvent, RunState } from '@agent-ledger/domain';
import type { EventStore, MultiStreamAppend } from '@agent-ledger/event-store';
import { hasMultiStreamAppend, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import type { AuditEntry } from './audit-recorder';
import { AuditRecorder } from './audit-recorder';
import type { DecidedCommand } from './decider-command-handler';
import type { CausationContext } from './domain-event-codec';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from './event-store.tokens';
import type { RunSnapshot } from './run-command-processor';
import { RunCommandProcessor } from './run-command-processor';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** Run commands decided one after the other on a snapshot, not appended: the run's part of a step's one append. */
export type DecidedRunCommand = DecidedCommand<RunCommand, RunState, RunEvent, RunDecision>;

/** How many times the audit part is decided again when another writer moved the audit stream first. */
const AUDIT_RACES = 2;

/**
 * A step's records in one commit: the run's events of the step (a read's
 * `StepStarted` and `ToolExecuted`; a write's `ToolExecuted`, its fence
 * stored before it ran; a model call's `ModelResponded`, its start stored
 * before the call) and its `AuditRecorded`, appended together to the run
 * stream and the audit stream, where the run store appends to several streams
 * at once and the audit streams live in it ({@link available}). Elsewhere
 * (EventStoreDB, an audit store of its own) a step's records are appended one
 * after the other, and the audit-gap saga covers the moment between them.
 *
 * It never throws for the store: {@link appendStep} answers null when the
 * append was refused or failed, having written nothing (or, when a
 * connection was lost during its commit, not known: the caller's records
 * one after the other then find what is stored, under the same event ids).
 */
@Injectable()
export class StepAppender {
  private readonly logger = new Logger(StepAppender.name);
  private readonly store: (EventStore & MultiStreamAppend) | null;

  constructor(
    @Inject(RUN_EVENT_STORE) runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) auditStore: EventStore,
    private readonly processor: RunCommandProcessor,
    private readonly recorder: AuditRecorder,
    private readonly metrics: RuntimeMetrics,
  ) {
    this.store = runStore === auditStore && hasMultiStreamAppend(runStore) ? runStore : null;
  }

  /** Whether a step's records go to the store in one commit here. */
  get available(): boolean {
    return this.store !== null;
  }

  /**
   * Decides `command` on `known` without appending. A decision other than
   * `accepted` with events is the caller's to handle as a sent command's
   * would be (it appends nothing).
   */
  decide(command: RunCommand, known: RunSnapshot, causation: CausationContext): DecidedRunCommand {
    return this.processor.decide(command, known, causation);
  }

  /**
   * Appends the run's decided commands (`run`, decided one after the other
   * from the first one's snapshot) and the audit of `entry`, in one commit.
   *
   * @returns the run as it stands after the commit, or null when nothing was
   *   stored (the run stream moved on, the audit decider refused the entry,
   *   the store failed): the caller appends the records one after the other.
   */
  async appendStep(run: readonly DecidedRunCommand[], entry: AuditEntry, now: number): Promise<RunSnapshot | null> {
    const store = this.store;
    const first = run[0];
    const last = run[run.length - 1];
    if (store === null || first === undefined || last === undefined) return null;
    const runPart = { streamName: first.stream, events: run.flatMap((command) => command.data), expectedRevision: first.expectedRevision };
    for (let race = 0; race <= AUDIT_RACES; race++) {
      const audit = await this.recorder.decideAudit(entry, now);
      if (audit === null) return this.fallBack(entry, 'its audit could not be decided');
      const parts = audit.data.length === 0 ? [runPart] : [runPart, { streamName: audit.stream, events: audit.data, expectedRevision: audit.expectedRevision }];
      try {
        await store.appendToStreams(parts);
      } catch (error) {
        const auditMoved = error instanceof WrongExpectedRevisionError && error.streamName === audit.stream;
        this.recorder.forgetAudit(audit);
        if (auditMoved && race < AUDIT_RACES) continue;
        this.processor.forget(first.stream);
        return this.fallBack(entry, error instanceof Error ? error.message : String(error));
      }
      this.recorder.auditCommitted(audit);
      this.metrics.increment('stepsAppendedTogether');
      return { state: last.state, revision: last.revision };
    }
    return this.fallBack(entry, 'the audit stream kept moving');
  }

  private fallBack(entry: AuditEntry, why: string): null {
    this.metrics.increment('stepAppendFallbacks');
    this.logger.debug(`The records of step ${entry.stepId} of run ${entry.runId} were not appended in one commit (${why}); appending them one after the other`);
    return null;
  }
}
