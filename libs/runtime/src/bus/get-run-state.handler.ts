import { QueryHandler } from '@nestjs/cqrs';
import type { IQueryHandler } from '@nestjs/cqrs';
import { RunNotFoundError } from '@agent-ledger/domain';
import { ValidatedQueryHandler } from '@agent-ledger/validation';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { GetRunState } from './get-run-state.query';
import type { RunStateAnswer } from './get-run-state.query';
import { runSummaryOf } from './run-summary';

/** Answers {@link GetRunState} (validated first) from the run's stream. */
@QueryHandler(GetRunState)
export class GetRunStateHandler extends ValidatedQueryHandler<GetRunState> implements IQueryHandler<GetRunState> {
  constructor(private readonly processor: RunCommandProcessor) {
    super();
  }

  protected async handle({ runId }: GetRunState): Promise<RunStateAnswer> {
    const { state } = await this.processor.load(runId);
    if (state.status === null) throw new RunNotFoundError(runId);
    return { runId, run: runSummaryOf(runId, state), state };
  }
}
