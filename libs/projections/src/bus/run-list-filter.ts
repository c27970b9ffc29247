import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { ListRunsQuery } from '../queries/run-list-query';

/**
 * The filters and page of {@link ListRuns} on the bus, with the rules of
 * `GET /runs`'s query (times are ms since the epoch here: the HTTP API also
 * reads ISO 8601 text and converts it).
 */
export class RunListFilter implements ListRunsQuery {
  @IsOptional()
  @IsIn(Object.values(RunStatus))
  readonly status?: RunStatus;

  @IsOptional()
  @IsIn(Object.values(TerminationReason))
  readonly reason?: TerminationReason;

  @IsOptional()
  @Length(1, 128)
  @IsString()
  readonly agent?: string;

  @IsOptional()
  @IsInt({ message: '$property must be ms since the epoch (an integer)' })
  readonly since?: number;

  @IsOptional()
  @IsInt({ message: '$property must be ms since the epoch (an integer)' })
  readonly until?: number;

  @IsOptional()
  @Min(1)
  @Max(1000)
  @IsInt()
  readonly limit?: number;

  @IsOptional()
  @Length(1, 1024)
  @IsString()
  readonly cursor?: string;
}
