import { IsOptional, IsString, Matches } from 'class-validator';
import { RUN_ID_MESSAGE, RUN_ID_PATTERN } from '../runs/run-dtos';

/** The query of `GET /audit/chains` (unknown parameters are refused). */
export class AuditChainsQueryDto {
  /** Only this run's audit chain. @default every run's */
  @IsOptional()
  @Matches(RUN_ID_PATTERN, { message: RUN_ID_MESSAGE })
  @IsString()
  runId?: string;
}
