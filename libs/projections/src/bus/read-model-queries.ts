import { Query } from '@nestjs/cqrs';
import { IsString, Matches, ValidateNested } from 'class-validator';
import { assignFields, RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';
import type { ApprovalPage, ListApprovalsQuery } from '../queries/approval-list-query';
import type { AuditReviewAnswer, AuditReviewRequest } from './audit-review-answer';
import type { ProjectionStatusEntry } from '../queries/projection-status';
import type { ListRunsQuery, RunPage } from '../queries/run-list-query';
import type { RunStatusRow } from '../run-status/run-status-row';
import type { StepRow } from '../steps/step-row';
import { ApprovalListFilter } from './approval-list-filter';
import { AuditReviewFilter } from './audit-review-filter';
import { RunListFilter } from './run-list-filter';

/*
 * The read models' queries, for the QueryBus. Each answers from the read
 * models (which lag the store by the projection's delay; see
 * `GetProjectionStatus`), never from the event streams. Each is checked with
 * its class-validator rules before its handler runs, as the commands are:
 * a refused query rejects with `MessageValidationError`, naming the field
 * (`runId`, `query.limit`...) as the HTTP API does.
 */

/**
 * One run's status row; null when the read model does not know the run (yet).
 * `new GetRun({ runId })`, the shape of every bus message.
 *
 * @throws MessageValidationError for a bad `runId`
 */
export class GetRun extends Query<RunStatusRow | null> {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: { readonly runId: string });
  /** @deprecated Pass `{ runId }`: the run id alone is still accepted, as before. */
  constructor(runId: string);
  constructor(fields: { readonly runId: string } | string) {
    super();
    assignFields(this, runIdFieldsOf(fields));
  }
}

/**
 * A page of runs, newest first, filtered.
 *
 * @throws MessageValidationError for a filter that breaks its rule, or an unknown one
 */
export class ListRuns extends Query<RunPage> {
  @ValidateNested()
  readonly query: ListRunsQuery;

  constructor(query: ListRunsQuery = {}) {
    super();
    this.query = nested(query, new RunListFilter());
  }
}

/**
 * The steps of a run, in order. `new GetRunSteps({ runId })`, the shape of
 * every bus message.
 *
 * @throws MessageValidationError for a bad `runId`
 */
export class GetRunSteps extends Query<StepRow[]> {
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  readonly runId!: string;

  /** Any other own field of `fields` is refused on the bus (`unknownField`). */
  constructor(fields: { readonly runId: string });
  /** @deprecated Pass `{ runId }`: the run id alone is still accepted, as before. */
  constructor(runId: string);
  constructor(fields: { readonly runId: string } | string) {
    super();
    assignFields(this, runIdFieldsOf(fields));
  }
}

/**
 * What `GET /audit/review` answers: the audit-review report (totals, writes
 * without audit, gaps, runs failed closed, interrupted writes) and the
 * integrity verdict read from the stores (`verdict`, `findings`; for one run,
 * its two streams read whole; `full` for a full pass). The report is read
 * after the verdict, once this process's read models have applied what the
 * stores hold (a wait of at most `AUDIT_REVIEW_SETTLE_WAIT_MS`).
 *
 * @throws MessageValidationError for an option that breaks its rule, or an unknown one
 */
export class GetAuditReview extends Query<AuditReviewAnswer> {
  @ValidateNested()
  readonly query: AuditReviewRequest;

  constructor(query: AuditReviewRequest = {}) {
    super();
    this.query = nested(query, new AuditReviewFilter());
  }
}

/**
 * A page of requests for approval (one per run and model round), newest
 * first, filtered: `new ListApprovals({ state: 'pending' })` lists the runs
 * waiting for a decision now. Answered from the approvals read model.
 *
 * @throws MessageValidationError for a filter that breaks its rule, or an unknown one
 */
export class ListApprovals extends Query<ApprovalPage> {
  @ValidateNested()
  readonly query: ListApprovalsQuery;

  constructor(query: ListApprovalsQuery = {}) {
    super();
    this.query = nested(query, new ApprovalListFilter());
  }
}

/** Each projection's checkpoint, events applied and lag behind its store. */
export class GetProjectionStatus extends Query<ProjectionStatusEntry[]> {}

/**
 * The fields of a query on one run: `{ runId }` as given, or the run id alone
 * (the older shape of `GetRun` and `GetRunSteps`) as `{ runId }`. Anything
 * else is given as it is, for the rules to refuse (a missing `runId`).
 */
function runIdFieldsOf(fields: unknown): unknown {
  return typeof fields === 'string' ? { runId: fields } : fields;
}

/**
 * A plain object's fields copied onto an instance of the class that carries
 * its rules, so that `ValidateNested` checks them (and refuses unknown ones);
 * anything else is kept as it is, for `ValidateNested` to refuse.
 */
function nested<T extends object>(fields: T, rules: T): T {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return fields;
  assignFields(rules, fields);
  return rules;
}
