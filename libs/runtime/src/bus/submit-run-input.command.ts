import { Command } from '@nestjs/cqrs';
import { IsObject, IsString, Matches, ValidateNested } from 'class-validator';
import type { JsonValue, Principal, RunState, RunStatus } from '@agent-ledger/domain';
import { IsJsonValue, IsPresent, PRINCIPAL_MESSAGE, RUN_ID_RULE, RUN_ID_RULE_MESSAGE, assignFields } from '@agent-ledger/validation';
import type { RunSummary } from './run-summary';
import { keepPrincipalField } from './principal-field';

/** The fields of {@link SubmitRunInput}. */
export interface SubmitRunInputFields {
  readonly runId: string;
  /** The answer, any JSON value: the tool that asked is called again with it (`context.userInput`). */
  readonly input: JsonValue;
  /**
   * Who sends the command, as the host authenticated its caller: recorded as
   * who answered (`{ kind: 'bus', id }` for a caller of the host's own, or the
   * `apiKey` / `development` principal of an HTTP caller the host serves).
   * Required: there is no default actor.
   */
  readonly principal: Principal;
}

/** What {@link SubmitRunInput} resolves to: the run, queued again. */
export interface SubmitRunInputResult {
  readonly runId: string;
  readonly status: RunStatus;
  readonly run: RunSummary;
  readonly state: RunState;
  /** `recorded`: the answer's statement is in the run's audit chain; `pending`: not stored yet (the tool gets the input only once it is). */
  readonly auditStatement: 'recorded' | 'pending';
}

/**
 * Submits the input a waiting run's tool asked for (`WAITING_FOR_INPUT`);
 * the run is queued again and a worker resumes it. The answer takes effect
 * on the run first (one of concurrent answers wins), then its statement is
 * stored in the run's audit chain (see `auditStatement`).
 *
 * @throws MessageValidationError for a field that breaks its rule
 * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError
 */
export class SubmitRunInput extends Command<SubmitRunInputResult> implements SubmitRunInputFields {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  @IsJsonValue()
  @IsPresent()
  readonly input!: JsonValue;

  /** Who sends it: see the fields' `principal`. */
  @ValidateNested()
  @IsObject({ message: PRINCIPAL_MESSAGE })
  readonly principal!: Principal;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: SubmitRunInputFields) {
    super();
    assignFields(this, fields);
    keepPrincipalField(this, fields);
  }
}
