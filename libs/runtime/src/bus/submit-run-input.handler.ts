import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { PersonDecision } from './person-decision';
import { runSummaryOf } from './run-summary';
import { SubmitRunInput } from './submit-run-input.command';
import type { SubmitRunInputResult } from './submit-run-input.command';

/**
 * Handles {@link SubmitRunInput} (validated first): `SubmitInput` on the run
 * (queued again), then the answer's statement in its audit chain
 * ({@link PersonDecision}); the tool gets the input only once it is stored.
 */
@CommandHandler(SubmitRunInput)
export class SubmitRunInputHandler extends ValidatedCommandHandler<SubmitRunInput> implements ICommandHandler<SubmitRunInput> {
  constructor(
    private readonly decisions: PersonDecision,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle({ runId, input, principal }: SubmitRunInput): Promise<SubmitRunInputResult> {
    const { state, auditStatement } = await this.decisions.take({ type: 'SubmitInput', data: { runId, input, submittedBy: principalOf(principal) }, metadata: { now: this.clock.now() } });
    return { runId, status: state.status ?? 'QUEUED', run: runSummaryOf(runId, state), state, auditStatement };
  }
}
