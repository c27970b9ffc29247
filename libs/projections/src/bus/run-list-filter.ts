import { IsIn, IsString, Length } from 'class-validator';
import { IsOmittable } from '@agent-ledger/validation';
import { PageFilter } from './page-filter';
import { RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { ListRunsQuery } from '../queries/run-list-query';

/**
 * The filters and page of {@link ListRuns} on the bus, with the rules of
 * `GET /runs`'s query (times are ms since the epoch here: the HTTP API also
 * reads ISO 8601 text and converts it).
 */
export class RunListFilter extends PageFilter implements ListRunsQuery {
  @IsOmittable()
  @IsIn(Object.values(RunStatus))
  readonly status?: RunStatus;

  @IsOmittable()
  @IsIn(Object.values(TerminationReason))
  readonly reason?: TerminationReason;

  @IsOmittable()
  @Length(1, 128)
  @IsString()
  readonly agent?: string;
}
