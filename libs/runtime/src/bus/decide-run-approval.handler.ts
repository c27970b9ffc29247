import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import type { ICommandHandler } from '@nestjs/cqrs';
import { principalOf, ValidatedCommandHandler } from '@agent-ledger/validation';
import type { Clock } from '../clock/clock';
import { CLOCK } from '../clock/clock';
import { DecideRunApproval } from './decide-run-approval.command';
import type { DecideRunApprovalResult } from './decide-run-approval.command';
import { PersonDecision } from './person-decision';
import { runSummaryOf } from './run-summary';

/**
 * Handles {@link DecideRunApproval} (validated first): `DecideApproval` on
 * the run, then the decision's statement in its audit chain
 * ({@link PersonDecision}). Approved (or denied with `tellModel`), the run is
 * queued again for a worker; denied with `endRun`, it fails `APPROVAL_DENIED`.
 */
@CommandHandler(DecideRunApproval)
export class DecideRunApprovalHandler extends ValidatedCommandHandler<DecideRunApproval> implements ICommandHandler<DecideRunApproval> {
  constructor(
    private readonly decisions: PersonDecision,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  protected async handle({ runId, decision, principal, reason, round }: DecideRunApproval): Promise<DecideRunApprovalResult> {
    const { state, auditStatement } = await this.decisions.take({
      type: 'DecideApproval',
      data: { runId, decision, decidedBy: principalOf(principal), reason, round },
      metadata: { now: this.clock.now() },
    });
    return { runId, status: state.status ?? 'QUEUED', run: runSummaryOf(runId, state), state, auditStatement };
  }
}
