import { Query } from '@nestjs/cqrs';
import { IsString, Matches } from 'class-validator';
import type { RunState } from '@agent-ledger/domain';
import { assignFields, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import type { RunSummary } from './run-summary';

/** What {@link GetRunState} resolves to. */
export interface RunStateAnswer {
  readonly runId: string;
  readonly run: RunSummary;
  readonly state: RunState;
}

/**
 * A run as its own stream tells it now (`RunService.get`): always fresh,
 * unlike the read models' `GetRun`, which follows the store a little behind.
 *
 * @throws MessageValidationError for a bad `runId`
 * @throws RunNotFoundError when the run was never requested
 */
export class GetRunState extends Query<RunStateAnswer> {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: { readonly runId: string }) {
    super();
    assignFields(this, fields);
  }
}
