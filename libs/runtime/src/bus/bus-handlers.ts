import { CommandHandler, QueryHandler } from '@nestjs/cqrs';
import type { ICommandHandler, IQueryHandler } from '@nestjs/cqrs';
import { RunNotFoundError } from '@agent-ledger/domain';
import { RunService } from './run-service';
import { CancelRun } from './cancel-run.command';
import type { CancelRunResult } from './cancel-run.command';
import { DecideRunApproval } from './decide-run-approval.command';
import type { DecideRunApprovalResult } from './decide-run-approval.command';
import { GetRunState } from './get-run-state.query';
import { SubmitRunInput } from './submit-run-input.command';
import type { SubmitRunInputResult } from './submit-run-input.command';
import { RequeueDeadLetteredRun } from './requeue-dead-lettered-run.command';
import type { RequeueDeadLetteredRunResult } from './requeue-dead-lettered-run.command';
import type { RunStateAnswer } from './get-run-state.query';
import { BusRunStarter } from './run-starter';
import { runSummaryOf } from './run-summary';
import { StartRun } from './start-run.command';
import type { StartRunResult } from './start-run.command';
import { principalOf, ValidatedCommandHandler, ValidatedQueryHandler } from '@agent-ledger/validation';

/** Handles {@link StartRun} (validated first). */
@CommandHandler(StartRun)
export class StartRunHandler extends ValidatedCommandHandler<StartRun> implements ICommandHandler<StartRun> {
  constructor(private readonly starter: BusRunStarter) {
    super();
  }

  protected handle(command: StartRun): Promise<StartRunResult> {
    return this.starter.start(command);
  }
}

/** Handles {@link CancelRun} (validated first). */
@CommandHandler(CancelRun)
export class CancelRunHandler extends ValidatedCommandHandler<CancelRun> implements ICommandHandler<CancelRun> {
  constructor(private readonly runs: RunService) {
    super();
  }

  protected async handle({ runId, principal, reason }: CancelRun): Promise<CancelRunResult> {
    const state = await this.runs.cancel(runId, principalOf(principal), reason);
    return { runId, settled: state.settlement !== null, status: state.status ?? 'RUNNING', run: runSummaryOf(runId, state), state };
  }
}

/** Handles {@link RequeueDeadLetteredRun} (validated first). */
@CommandHandler(RequeueDeadLetteredRun)
export class RequeueDeadLetteredRunHandler extends ValidatedCommandHandler<RequeueDeadLetteredRun> implements ICommandHandler<RequeueDeadLetteredRun> {
  constructor(private readonly runs: RunService) {
    super();
  }

  protected async handle({ runId, principal, reason, resolution }: RequeueDeadLetteredRun): Promise<RequeueDeadLetteredRunResult> {
    const requeued = await this.runs.requeue(runId, {
      requestedBy: principalOf(principal),
      reason,
      resolution: resolution === undefined ? undefined : { outcome: resolution.outcome, note: resolution.note },
    });
    return { runId, continuationRunId: requeued.continuationRunId, state: requeued.state };
  }
}

/** Handles {@link DecideRunApproval} (validated first). */
@CommandHandler(DecideRunApproval)
export class DecideRunApprovalHandler extends ValidatedCommandHandler<DecideRunApproval> implements ICommandHandler<DecideRunApproval> {
  constructor(private readonly runs: RunService) {
    super();
  }

  protected async handle({ runId, decision, principal, reason, round }: DecideRunApproval): Promise<DecideRunApprovalResult> {
    const { state, auditStatement } = await this.runs.decideApproval(runId, { decision, decidedBy: principalOf(principal), reason, round });
    return { runId, status: state.status ?? 'QUEUED', run: runSummaryOf(runId, state), state, auditStatement };
  }
}

/** Handles {@link SubmitRunInput} (validated first). */
@CommandHandler(SubmitRunInput)
export class SubmitRunInputHandler extends ValidatedCommandHandler<SubmitRunInput> implements ICommandHandler<SubmitRunInput> {
  constructor(private readonly runs: RunService) {
    super();
  }

  protected async handle({ runId, input, principal }: SubmitRunInput): Promise<SubmitRunInputResult> {
    const { state, auditStatement } = await this.runs.submitInput(runId, { input, submittedBy: principalOf(principal) });
    return { runId, status: state.status ?? 'QUEUED', run: runSummaryOf(runId, state), state, auditStatement };
  }
}

/** Answers {@link GetRunState} (validated first) from the run's stream. */
@QueryHandler(GetRunState)
export class GetRunStateHandler extends ValidatedQueryHandler<GetRunState> implements IQueryHandler<GetRunState> {
  constructor(private readonly runs: RunService) {
    super();
  }

  protected async handle({ runId }: GetRunState): Promise<RunStateAnswer> {
    const state = await this.runs.get(runId);
    if (state.status === null) throw new RunNotFoundError(runId);
    return { runId, run: runSummaryOf(runId, state), state };
  }
}

/** The handlers of the public commands and queries, and what they need. */
export const BUS_PROVIDERS = [
  BusRunStarter,
  StartRunHandler,
  CancelRunHandler,
  RequeueDeadLetteredRunHandler,
  DecideRunApprovalHandler,
  SubmitRunInputHandler,
  GetRunStateHandler,
];
