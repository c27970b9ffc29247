import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { QueueIndex } from '../queue/queue-index';
import { DecideRunApproval } from './decide-run-approval.command';
import type { DecideRunApprovalResult } from './decide-run-approval.command';
import { DecisionStatements } from './decision-statements';
import { runSummaryOf } from './run-summary';

/**
 * Handles {@link DecideRunApproval} (validated first). The decision takes
 * effect on the run first (`DecideApproval`: of concurrent decisions and
 * cancels exactly one wins, the others are refused); then its statement,
 * derived from the recorded decision, is stored in the run's audit chain. If
 * that fails the decision still stands (`auditStatement: 'pending'`): the
 * segment that resumes the run stores it before anything else, and fails the
 * run closed if it cannot; a run that settled with the decision gets it from
 * the audit-gap saga.
 */
@CommandHandler(DecideRunApproval)
export class DecideRunApprovalHandler extends ValidatedCommandHandler<DecideRunApproval> implements ICommandHandler<DecideRunApproval> {
  constructor(
    private readonly processor: RunCommandProcessor,
    private readonly statements: DecisionStatements,
    private readonly index: QueueIndex,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle({ runId, decision, principal, reason, round }: DecideRunApproval): Promise<DecideRunApprovalResult> {
    const outcome = await this.processor.process({
      type: 'DecideApproval',
      data: { runId, decision, decidedBy: principalOf(principal), reason, round },
      metadata: { now: this.clock.now() },
    });
    if (outcome.decision.kind === 'rejected') throw outcome.decision.error;
    const auditStatement = await this.statements.recordDecided(outcome);
    this.index.changes.notify();
    const { state } = outcome;
    return { runId, status: state.status ?? 'QUEUED', run: runSummaryOf(runId, state), state, auditStatement };
  }
}
