import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { CancelRun } from './cancel-run.command';
import type { CancelRunResult } from './cancel-run.command';
import { runSummaryOf } from './run-summary';

/**
 * Handles {@link CancelRun} (validated first): `RequestCancel` on the run's
 * decider. A queued run is cancelled at once; a running one at its segment's
 * next step boundary.
 */
@CommandHandler(CancelRun)
export class CancelRunHandler extends ValidatedCommandHandler<CancelRun> implements ICommandHandler<CancelRun> {
  constructor(
    private readonly processor: RunCommandProcessor,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle({ runId, principal, reason }: CancelRun): Promise<CancelRunResult> {
    const outcome = await this.processor.process({ type: 'RequestCancel', data: { runId, requestedBy: principalOf(principal), reason }, metadata: { now: this.clock.now() } });
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    const { state } = outcome;
    return { runId, settled: state.settlement !== null, status: state.status ?? 'RUNNING', run: runSummaryOf(runId, state), state };
  }
}
