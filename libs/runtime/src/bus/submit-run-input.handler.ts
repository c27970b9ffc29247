import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { QueueIndex } from '../queue/queue-index';
import { DecisionStatements } from './decision-statements';
import { runSummaryOf } from './run-summary';
import { SubmitRunInput } from './submit-run-input.command';
import type { SubmitRunInputResult } from './submit-run-input.command';

/**
 * Handles {@link SubmitRunInput} (validated first): the answer takes effect
 * on the run first (`SubmitInput`, the run is queued again), then its
 * statement is stored in the run's audit chain, as for an approval; the tool
 * gets the input only once the statement is stored.
 */
@CommandHandler(SubmitRunInput)
export class SubmitRunInputHandler extends ValidatedCommandHandler<SubmitRunInput> implements ICommandHandler<SubmitRunInput> {
  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly statements: DecisionStatements,
    private readonly index: QueueIndex,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle({ runId, input, principal }: SubmitRunInput): Promise<SubmitRunInputResult> {
    const outcome = await this.processor.process({ type: 'SubmitInput', data: { runId, input, submittedBy: principalOf(principal) }, metadata: { now: this.clock.now() } });
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    const auditStatement = await this.statements.recordDecided(outcome);
    this.index.changes.notify();
    const { state } = outcome;
    return { runId, status: state.status ?? 'QUEUED', run: runSummaryOf(runId, state), state, auditStatement };
  }
}
