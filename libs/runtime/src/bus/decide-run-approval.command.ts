import { Command } from '@nestjs/cqrs';
import { IsIn, IsInt, IsObject, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import type { Principal, RunState, RunStatus } from '@agent-ledger/domain';
import { MAX_ITERATIONS } from '@agent-ledger/domain';
import { IsOmittable, PRINCIPAL_MESSAGE, RUN_ID_RULE, RUN_ID_RULE_MESSAGE, assignFields } from '@agent-ledger/validation';
import type { RunSummary } from './run-summary';
import { keepPrincipalField } from './principal-field';

/** The two decisions on calls that wait for approval. */
export const APPROVAL_DECISIONS = ['approve', 'deny'] as const;

/** The fields of {@link DecideRunApproval}. */
export interface DecideRunApprovalFields {
  readonly runId: string;
  /** `approve`: the calls execute (a worker resumes the run); `deny`: they never do. */
  readonly decision: (typeof APPROVAL_DECISIONS)[number];
  /**
   * Who sends the command, as the host authenticated its caller: recorded as
   * who decided, in the run and in its audit trail (`{ kind: 'bus', id }` for a caller of the host's own, or the
   * `apiKey` / `development` principal of an HTTP caller the host serves).
   * Required: there is no default actor.
   */
  readonly principal: Principal;
  /** Why, for the record: 1 to 500 characters. */
  readonly reason?: string;
  /** The round whose request the person saw (0 to 19): a decision on another request is refused. */
  readonly round?: number;
}

/** What {@link DecideRunApproval} resolves to: the run after the decision. */
export interface DecideRunApprovalResult {
  readonly runId: string;
  /** `QUEUED` once approved (or denied with `tellModel`), `FAILED` when a denial ended it. */
  readonly status: RunStatus;
  readonly run: RunSummary;
  readonly state: RunState;
  /**
   * `recorded`: the decision's statement is in the run's audit chain;
   * `pending`: the decision took effect but its statement could not be stored
   * yet. Nothing the decision allows happens before it is stored (or the run
   * fails closed): do not send the decision again, it would be refused.
   */
  readonly auditStatement: 'recorded' | 'pending';
}

/**
 * A person approves or denies the calls a run waits for
 * (`WAITING_FOR_APPROVAL`). The decision takes effect on the run first (one of
 * concurrent decisions wins, the others are refused), then its statement is
 * stored in the run's audit chain (see `auditStatement`); an approval queues
 * the run for a worker, and a denial tells the model or ends the run
 * `APPROVAL_DENIED`, as the agent's configuration says.
 *
 * @throws MessageValidationError for a field that breaks its rule
 * @throws RunNotFoundError, RunAlreadySettledError, RunNotWaitingError (not waiting, or decided already), ApprovalRoundMismatchError
 */
export class DecideRunApproval extends Command<DecideRunApprovalResult> implements DecideRunApprovalFields {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  @IsIn(APPROVAL_DECISIONS)
  readonly decision!: (typeof APPROVAL_DECISIONS)[number];

  /** Who sends it: see the fields' `principal`. */
  @ValidateNested()
  @IsObject({ message: PRINCIPAL_MESSAGE })
  readonly principal!: Principal;

  @IsOmittable()
  @Length(1, 500)
  @IsString()
  readonly reason?: string;

  @IsOmittable()
  @Min(0)
  @Max(MAX_ITERATIONS - 1)
  @IsInt()
  readonly round?: number;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: DecideRunApprovalFields) {
    super();
    assignFields(this, fields);
    keepPrincipalField(this, fields);
  }
}
