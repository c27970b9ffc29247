import { Command } from '@nestjs/cqrs';
import { IsIn, IsObject, IsString, Length, Matches, ValidateNested } from 'class-validator';
import type { JsonValue, Principal, RunState, RunStatus } from '@agent-ledger/domain';
import type { SegmentOutcome } from '../segment/segment-runner';
import {
  assignFields,
  IDEMPOTENCY_KEY_RULE,
  IDEMPOTENCY_KEY_RULE_MESSAGE,
  IsJsonValue,
  IsOmittable,
  IsPresent,
  PRINCIPAL_MESSAGE,
  RUN_ID_RULE,
  RUN_ID_RULE_MESSAGE,
} from '@agent-ledger/validation';
import type { RunSummary } from './run-summary';
import { keepPrincipalField } from './principal-field';

/** How a run is started. */
export const START_MODES = ['interactive', 'queued'] as const;
/** One of {@link START_MODES}. */
export type StartMode = (typeof START_MODES)[number];

/** The fields of {@link StartRun}. */
export interface StartRunFields {
  /** The agent's name, as configured: 1 to 128 characters. */
  readonly agent: string;
  /** The task: any JSON value (a string is shown to the model as is); `null` is allowed. */
  readonly input: JsonValue;
  /**
   * `interactive`: executed by this call, which resolves with the settled run;
   * `queued`: recorded, executed by a worker, resolves at once with its id.
   * @default 'queued'
   */
  readonly mode?: StartMode;
  /**
   * Who starts the run, as the host authenticated its caller: recorded with
   * the request (`RunRequested.requestedBy`) and stated in the run's audit
   * chain (`{ kind: 'bus', id }` for a caller of the host's own, or the
   * `apiKey` / `development` principal of an HTTP caller the host serves).
   * Required: there is no default actor.
   */
  readonly principal: Principal;
  /** The run's id. @default a random UUID, or the one derived from `idempotencyKey` */
  readonly runId?: string;
  /**
   * Makes the command safe to repeat: the run id is derived from it
   * (`runIdForIdempotencyKey`), so the same key gives the same run and starts
   * nothing new. Not with `runId`. 1 to 255 printable ASCII characters.
   */
  readonly idempotencyKey?: string;
}

/** What {@link StartRun} resolves to for a queued run. */
export interface QueuedStartResult {
  readonly mode: 'queued';
  readonly runId: string;
  /** `QUEUED` for a new run; the run's current status for a replay. */
  readonly status: RunStatus;
  /** The idempotency key named an existing run: nothing new was started. */
  readonly replayed: boolean;
}

/** What {@link StartRun} resolves to for an interactive run. */
export interface InteractiveStartResult {
  readonly mode: 'interactive';
  readonly runId: string;
  /** The run's status once this call's segment ended (`COMPLETED`, `FAILED`...). */
  readonly status: RunStatus;
  readonly replayed: boolean;
  /** How this call's segment ended; null for a replay (no segment ran). */
  readonly segment: SegmentOutcome['kind'] | null;
  /** The run at a glance. */
  readonly run: RunSummary;
  /** The run's full state, as its stream tells it. */
  readonly state: RunState;
}

/** What {@link StartRun} resolves to. */
export type StartRunResult = QueuedStartResult | InteractiveStartResult;

// Decorators run bottom-up: the type check sits right above each property so
// that it runs first, and `stopAtFirstError` reports one rule per field.
// The rules and messages are the HTTP API's (`POST /runs`).

/**
 * Starts a run of an agent. Send it through the `CommandBus`; it is validated
 * before its handler runs (a refusal is `MessageValidationError` and appends
 * nothing).
 *
 * @example
 * const result = await commandBus.execute(
 *   new StartRun({ agent: 'clerk', input: 'close T-1', mode: 'interactive', idempotencyKey: 'close-T-1', principal: { kind: 'bus', id: 'billing-job' } }),
 * );
 * if (result.mode === 'interactive') console.log(result.status, result.run.answer);
 *
 * @throws MessageValidationError for a field that breaks its rule
 * @throws InvalidFieldError for an unknown agent, or `runId` with `idempotencyKey`
 * @throws RunAlreadyExistsError for an explicit `runId` that exists
 * @throws IdempotencyKeyReusedError when the key's run was started with another agent, mode or input
 */
export class StartRun extends Command<StartRunResult> implements StartRunFields {
  @Length(1, 128)
  @IsString()
  readonly agent!: string;

  @IsJsonValue()
  @IsPresent()
  readonly input!: JsonValue;

  @IsOmittable()
  @IsIn(START_MODES)
  readonly mode?: StartMode;

  /** Who starts it: see the fields' `principal`. */
  @ValidateNested()
  @IsObject({ message: PRINCIPAL_MESSAGE })
  readonly principal!: Principal;

  @IsOmittable()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId?: string;

  @IsOmittable()
  @Matches(IDEMPOTENCY_KEY_RULE, { message: IDEMPOTENCY_KEY_RULE_MESSAGE })
  @IsString()
  readonly idempotencyKey?: string;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: StartRunFields) {
    super();
    assignFields(this, fields);
    keepPrincipalField(this, fields);
  }
}
