import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { IsOmittable } from '@agent-ledger/validation';

/**
 * The time window and page of a newest-first list on the bus (`ListRuns`,
 * `ListApprovals`), with the rules of the HTTP API's query strings (times
 * are ms since the epoch here: the HTTP API also reads ISO 8601 text).
 */
export abstract class PageFilter {
  /** Rows requested at or after this time. */
  @IsOmittable()
  @IsInt({ message: '$property must be ms since the epoch (an integer)' })
  readonly since?: number;

  /** Rows requested before this time. */
  @IsOmittable()
  @IsInt({ message: '$property must be ms since the epoch (an integer)' })
  readonly until?: number;

  /** 1 to 1000. @default 50 */
  @IsOmittable()
  @Min(1)
  @Max(1000)
  @IsInt()
  readonly limit?: number;

  /** The `nextCursor` of the previous page. */
  @IsOmittable()
  @Length(1, 1024)
  @IsString()
  readonly cursor?: string;
}
