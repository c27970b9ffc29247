import { Command } from '@nestjs/cqrs';
import { IsIn, IsObject, IsString, Length, Matches, ValidateNested } from 'class-validator';
import type { Principal, RunState } from '@agent-ledger/domain';
import { IsOmittable, PRINCIPAL_MESSAGE, RUN_ID_RULE, RUN_ID_RULE_MESSAGE, assignFields } from '@agent-ledger/validation';
import { keepPrincipalField } from './principal-field';

/** An operator's statement of what became of a write that was in flight. */
export class InFlightWriteResolutionFields {
  /** `executed`: the write happened; `notExecuted`: it did not. */
  @IsIn(['executed', 'notExecuted'])
  readonly outcome!: 'executed' | 'notExecuted';

  /** How the operator knows: 1 to 2000 characters. */
  @Length(1, 2000)
  @IsString()
  readonly note!: string;
}

/** The fields of {@link RequeueDeadLetteredRun}. */
export interface RequeueDeadLetteredRunFields {
  readonly runId: string;
  /**
   * Who sends the command, as the host authenticated its caller: recorded as
   * who requeued (and stated the resolution, in the audit trail) (`{ kind: 'bus', id }` for a caller of the host's own, or the
   * `apiKey` / `development` principal of an HTTP caller the host serves).
   * Required: there is no default actor.
   */
  readonly principal: Principal;
  /** Why, for the record: 1 to 500 characters. */
  readonly reason?: string;
  /** Required when a NON_IDEMPOTENT_WRITE was in flight. */
  readonly resolution?: { readonly outcome: 'executed' | 'notExecuted'; readonly note: string };
}

/** What {@link RequeueDeadLetteredRun} resolves to. */
export interface RequeueDeadLetteredRunResult {
  readonly runId: string;
  /** The run that continues it (queued). */
  readonly continuationRunId: string;
  /** The continuation run's state as requested. */
  readonly state: RunState;
}

/**
 * An operator requeues a dead-lettered run: it stays FAILED, and a
 * continuation run takes it over with its completed steps and idempotency
 * keys (see `RunService.requeue`).
 *
 * @throws MessageValidationError for a field that breaks its rule
 * @throws RunNotFoundError, RunNotDeadLetteredError, RunAlreadyRequeuedError, InFlightWriteUnresolvedError, AuditStatementNotStoredError
 */
export class RequeueDeadLetteredRun extends Command<RequeueDeadLetteredRunResult> implements RequeueDeadLetteredRunFields {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  /** Who sends it: see the fields' `principal`. */
  @ValidateNested()
  @IsObject({ message: PRINCIPAL_MESSAGE })
  readonly principal!: Principal;

  @IsOmittable()
  @Length(1, 500)
  @IsString()
  readonly reason?: string;

  @IsOmittable()
  @ValidateNested()
  readonly resolution?: InFlightWriteResolutionFields;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: RequeueDeadLetteredRunFields) {
    super();
    assignFields(this, fields);
    keepPrincipalField(this, fields);
    // The nested statement is checked with its own rules, so it becomes an instance of its class.
    const resolution: unknown = (fields as { resolution?: unknown } | null)?.resolution;
    if (typeof resolution === 'object' && resolution !== null && !Array.isArray(resolution)) {
      const nested = new InFlightWriteResolutionFields();
      assignFields(nested, resolution);
      Object.defineProperty(this, 'resolution', { value: nested, enumerable: true, writable: false, configurable: true });
    }
  }
}
