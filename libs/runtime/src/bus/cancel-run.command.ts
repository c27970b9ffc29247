import { Command } from '@nestjs/cqrs';
import { IsString, Length, Matches } from 'class-validator';
import type { RunState, RunStatus } from '@agent-ledger/domain';
import { assignFields, IsOmittable, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import type { RunSummary } from './run-summary';

/** The fields of {@link CancelRun}. */
export interface CancelRunFields {
  readonly runId: string;
  /** Who asks, for the record: 1 to 128 characters. */
  readonly requestedBy: string;
  /** Why, for the record: 1 to 500 characters. */
  readonly reason?: string;
}

/** What {@link CancelRun} resolves to. */
export interface CancelRunResult {
  readonly runId: string;
  /**
   * True when the run is cancelled already (it was queued); false when a
   * running segment will stop at its next step boundary.
   */
  readonly settled: boolean;
  readonly status: RunStatus;
  readonly run: RunSummary;
  readonly state: RunState;
}

/**
 * Asks to cancel a run: a queued run is cancelled at once, a running one at
 * its segment's next step boundary.
 *
 * @throws MessageValidationError for a field that breaks its rule
 * @throws RunNotFoundError, RunAlreadySettledError
 */
export class CancelRun extends Command<CancelRunResult> implements CancelRunFields {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  @Length(1, 128)
  @IsString()
  readonly requestedBy!: string;

  @IsOmittable()
  @Length(1, 500)
  @IsString()
  readonly reason?: string;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: CancelRunFields) {
    super();
    assignFields(this, fields);
  }
}
