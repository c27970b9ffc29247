import { Command } from '@nestjs/cqrs';
import { IsIn, IsString, Length, Matches, ValidateNested } from 'class-validator';
import type { RunState } from '@agent-ledger/domain';
import { assignFields, IsOmittable, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';

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
  /** Who requeues, for the record: 1 to 128 characters. */
  readonly requestedBy: string;
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

  @Length(1, 128)
  @IsString()
  readonly requestedBy!: string;

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
    // The nested statement is checked with its own rules, so it becomes an instance of its class.
    const resolution: unknown = (fields as { resolution?: unknown } | null)?.resolution;
    if (typeof resolution === 'object' && resolution !== null && !Array.isArray(resolution)) {
      const nested = new InFlightWriteResolutionFields();
      assignFields(nested, resolution);
      Object.defineProperty(this, 'resolution', { value: nested, enumerable: true, writable: false, configurable: true });
    }
  }
}
