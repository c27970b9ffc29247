import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import type { InFlightWriteResolution, RunState } from '@agent-ledger/domain';
import { continuationOf, RunAlreadyRequeuedError } from '@agent-ledger/domain';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { QueueIndex } from '../queue/queue-index';
import { AuditStatementNotStoredError } from './audit-statement-not-stored.error';
import { DecisionStatements } from './decision-statements';
import { RequeueDeadLetteredRun } from './requeue-dead-lettered-run.command';
import type { RequeueDeadLetteredRunResult } from './requeue-dead-lettered-run.command';

/**
 * Handles {@link RequeueDeadLetteredRun} (validated first): the run stays
 * settled, and a continuation run (queued at once) carries its completed
 * steps and its idempotency keys.
 *
 * The requeue takes effect on the run first (`RequeueRun`: one of concurrent
 * requeues wins, the others are refused `RUN_ALREADY_REQUEUED`); then the
 * resolution's statement, derived from the recorded requeue, is stored in the
 * run's audit chain, and only then is the continuation started.
 *
 * Repeating a requeue that was recorded but whose continuation was not (a
 * crash in between, or a statement that could not be stored) completes it:
 * the statement first (late), then the continuation, with the resolution the
 * run recorded. A repeat that states another resolution is refused.
 */
@CommandHandler(RequeueDeadLetteredRun)
export class RequeueDeadLetteredRunHandler extends ValidatedCommandHandler<RequeueDeadLetteredRun> implements ICommandHandler<RequeueDeadLetteredRun> {
  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly statements: DecisionStatements,
    private readonly index: QueueIndex,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle(command: RequeueDeadLetteredRun): Promise<RequeueDeadLetteredRunResult> {
    const { runId } = command;
    const resolution = command.resolution === undefined ? undefined : { outcome: command.resolution.outcome, note: command.resolution.note };
    const snapshot = await this.processor.load(runId);
    const recorded = snapshot.state.continuedAs;
    if (recorded !== null && (await this.processor.load(recorded)).state.status === null) {
      const stated = recordedResolution(snapshot.state, recorded);
      const differs = resolution !== undefined && (stated === undefined || stated.outcome !== resolution.outcome || stated.note !== resolution.note);
      if (differs) throw new RunAlreadyRequeuedError(runId, recorded);
      await this.stateRequeue(snapshot.state, recorded, 'late');
      return this.startContinuation(runId, snapshot.state, recorded, stated);
    }
    const continuationRunId = randomUUID();
    const outcome = await this.processor.process(
      {
        type: 'RequeueRun',
        data: { runId, continuationRunId, requestedBy: principalOf(command.principal), reason: command.reason, resolution },
        metadata: { now: this.clock.now() },
      },
      snapshot,
    );
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    await this.stateRequeue(outcome.state, continuationRunId, 'deferred');
    return this.startContinuation(runId, outcome.state, continuationRunId, recordedResolution(outcome.state, continuationRunId));
  }

  /** Stores the statement of a recorded requeue's resolution, if it has one; throws when it cannot be stored: the continuation must not start. */
  private async stateRequeue(state: RunState, continuationRunId: string, when: 'deferred' | 'late'): Promise<void> {
    const statement = state.statements.find((s) => s.kind === 'resolution' && s.data.continuationRunId === continuationRunId);
    if (statement === undefined || statement.kind !== 'resolution') return;
    if ((await this.statements.record(statement, when)) === 'notStored') throw new AuditStatementNotStoredError(statement.data.runId, statement.data.stepId, continuationRunId);
  }

  /** Requests the continuation, started by the operator the requeue records (a repeat's caller may be another). */
  private async startContinuation(runId: string, state: RunState, continuationRunId: string, resolution: InFlightWriteResolution | undefined): Promise<RequeueDeadLetteredRunResult> {
    if (state.requeuedBy === null) throw new Error(`Run ${runId} records no requeue to continue`);
    const outcome = await this.processor.process({ type: 'RequestRun', data: continuationOf(state, continuationRunId, state.requeuedBy, resolution), metadata: { now: this.clock.now() } });
    if (outcome.decision.kind === 'rejected' && outcome.decision.error.code !== 'RUN_ALREADY_EXISTS') throw outcome.decision.error;
    await this.statements.recordDecided(outcome);
    this.index.changes.notify();
    return { runId, continuationRunId, state: outcome.state };
  }
}

/** The resolution a recorded requeue states for its continuation, as the run holds it. */
function recordedResolution(state: RunState, continuationRunId: string): InFlightWriteResolution | undefined {
  const statement = state.statements.find((s) => s.kind === 'resolution' && s.data.continuationRunId === continuationRunId);
  return statement?.kind === 'resolution' ? { outcome: statement.data.outcome, note: statement.data.note } : undefined;
}
