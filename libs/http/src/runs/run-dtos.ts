import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import type { JsonValue } from '@agent-ledger/domain';
import { MAX_ITERATIONS, RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { StartMode } from '@agent-ledger/runtime';
import { APPROVAL_DECISIONS, START_MODES } from '@agent-ledger/runtime';
import type { ApprovalState } from '@agent-ledger/projections';
import { APPROVAL_STATES } from '@agent-ledger/projections';
import { IDEMPOTENCY_KEY_RULE, IDEMPOTENCY_KEY_RULE_MESSAGE, IsOmittable, IsPresent, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import { RawJson } from '../validation/raw-json';

// Decorators run bottom-up: the type check sits right above each property so
// that it runs first, and `stopAtFirstError` reports one rule per field.

/** The body of `POST /runs`. */
export class StartRunDto {
  /** The agent's name, as configured. */
  @Length(1, 128)
  @IsString()
  agent!: string;

  /** The task: any JSON value (a string is shown to the model as is). */
  @RawJson()
  @IsPresent()
  input!: JsonValue;

  /**
   * `interactive`: executed during the request, the answer carries the settled
   * run; `queued`: recorded, executed by a worker, answered 202 at once.
   * @default 'queued'
   */
  @IsOmittable()
  @IsIn(START_MODES)
  mode?: StartMode;

  /** The run's id. @default a random UUID (or one derived from `idempotencyKey`) */
  @IsOmittable()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  runId?: string;

  /**
   * A client key that makes the request safe to repeat: the same key gives
   * the same run and starts nothing new. 1 to 255 printable characters.
   */
  @IsOmittable()
  @Matches(IDEMPOTENCY_KEY_RULE, { message: IDEMPOTENCY_KEY_RULE_MESSAGE })
  @IsString()
  idempotencyKey?: string;
}

/**
 * The body of `POST /runs/{runId}/cancel` (optional). Who asks is not in the
 * body: it is the authenticated caller (a `requestedBy` field is refused).
 */
export class CancelRunDto {
  /** Why, for the record: the caller's own words, never who acted. */
  @IsOmittable()
  @Length(1, 500)
  @IsString()
  reason?: string;
}

/** A time in a query: ms since the epoch, or an ISO 8601 date-time. A value that is neither stays as it is, for `IsInt` to refuse. */
export function toInstant({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  if (/^\d{1,16}$/.test(value)) return Number(value);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? value : ms;
}
export const INSTANT_MESSAGE = '$property must be ms since the epoch or an ISO 8601 date-time';

/**
 * The time window and page of a newest-first listing's query (`GET /runs`,
 * `GET /approvals`): times as ms since the epoch or ISO 8601 text.
 */
export abstract class PageQueryDto {
  /** Rows requested at or after this time. */
  @IsOptional()
  @Transform(toInstant)
  @IsInt({ message: INSTANT_MESSAGE })
  since?: number;

  /** Rows requested before this time. */
  @IsOptional()
  @Transform(toInstant)
  @IsInt({ message: INSTANT_MESSAGE })
  until?: number;

  /** @default 50 */
  @IsOptional()
  @Min(1)
  @Max(1000)
  @IsInt()
  @Type(() => Number)
  limit?: number;

  /** The `nextCursor` of the previous page. */
  @IsOptional()
  @Length(1, 1024)
  @IsString()
  cursor?: string;
}

/** The query of `GET /runs`. */
export class ListRunsQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(Object.values(RunStatus))
  status?: RunStatus;

  @IsOptional()
  @IsIn(Object.values(TerminationReason))
  reason?: TerminationReason;

  @IsOptional()
  @Length(1, 128)
  @IsString()
  agent?: string;

}

/** The query of `GET /audit/review`. */
export class AuditReviewQueryDto {
  /** Only this run. */
  @IsOptional()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  runId?: string;

  /** Most rows in each list, 1 to 100000. @default 1000 */
  @IsOptional()
  @Min(1)
  @Max(100_000)
  @IsInt()
  @Type(() => Number)
  limit?: number;

  /** `true`: verify every run from both stores' first event, whatever the checkpoint (`true` or `false`). @default false */
  @IsOptional()
  @IsBoolean()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  full?: boolean;
}

/** The query of the event streams (`GET /events`, `GET /runs/{runId}/events`). */
export class EventStreamQueryDto {
  /** Resume after this position (an SSE `id`); the `Last-Event-ID` header wins over it. */
  @IsOptional()
  @Length(1, 64)
  @IsString()
  after?: string;

  /**
   * `now`: only events recorded after the request (no history), for a client
   * that wants to hear of changes, not replay them. `Last-Event-ID` and
   * `after` win over it, so a reconnection resumes where it left off.
   */
  @IsOptional()
  @IsIn(['start', 'now'])
  from?: 'start' | 'now';
}

/** An operator's statement of what became of a write that was in flight. */
export class InFlightWriteResolutionDto {
  /** `executed`: the write happened; `notExecuted`: it did not. */
  @IsIn(['executed', 'notExecuted'])
  outcome!: 'executed' | 'notExecuted';

  /** How the operator knows. */
  @Length(1, 2000)
  @IsString()
  note!: string;
}

/**
 * The body of `POST /runs/{runId}/requeue`. Who requeues is not in the body:
 * it is the authenticated caller (a `requestedBy` field is refused).
 */
export class RequeueRunDto {
  /** Why, for the record: the caller's own words, never who acted. */
  @IsOmittable()
  @Length(1, 500)
  @IsString()
  reason?: string;

  /** Required when a NON_IDEMPOTENT_WRITE was in flight when the run was dead-lettered. */
  @IsOmittable()
  @ValidateNested()
  @Type(() => InFlightWriteResolutionDto)
  resolution?: InFlightWriteResolutionDto;
}

/** A person's decision on the calls a run waits to have approved. */
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/**
 * The body of `POST /runs/{runId}/approval`. Who decides is not in the
 * body: it is the caller's API key id (`development` without keys).
 */
export class DecideApprovalDto {
  /** `approve`: the calls execute (a worker resumes the run); `deny`: they never do. */
  @IsIn(APPROVAL_DECISIONS)
  decision!: ApprovalDecision;

  /** Why, for the record and the audit trail. */
  @IsOmittable()
  @Length(1, 500)
  @IsString()
  reason?: string;

  /**
   * The round of the request the person saw (`pendingApproval.round`): a
   * decision on another request is refused (409 `APPROVAL_ROUND_MISMATCH`).
   * @default the request the run waits for
   */
  @IsOmittable()
  @Min(0)
  @Max(MAX_ITERATIONS - 1)
  @IsInt()
  round?: number;
}

/** The body of `POST /runs/{runId}/input`. Who submits is the caller's API key id. */
export class SubmitInputDto {
  /** The answer: any JSON value, `null` included; the tool that asked is called again with it. */
  @RawJson()
  @IsPresent()
  input!: JsonValue;
}

/** The query of `GET /approvals`. */
export class ListApprovalsQueryDto extends PageQueryDto {
  /** Only requests in this state (`pending`: the runs waiting for a decision now). @default every state */
  @IsOptional()
  @IsIn(APPROVAL_STATES)
  state?: ApprovalState;

  @IsOptional()
  @Length(1, 128)
  @IsString()
  agent?: string;

  /** Only this run's requests. */
  @IsOptional()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  runId?: string;
}
