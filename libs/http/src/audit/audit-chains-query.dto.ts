import { IsOptional, IsString, Matches } from 'class-validator';
import { RUN_ID_RULE, RUN_ID_RULE_MESSAGE } from '@agent-ledger/validation';

/** The query of `GET /audit/chains` (unknown parameters are refused). */
export class AuditChainsQueryDto {
  /** Only this run's audit chain. @default every run's */
  @IsOptional()
  @Matches(RUN_ID_RULE, { message: RUN_ID_RULE_MESSAGE })
  @IsString()
  runId?: string;
}
