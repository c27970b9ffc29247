import { IsIn, IsString } from 'class-validator';
import type { ProjectionName } from '@agent-ledger/projections';
import { PROJECTION_NAMES } from '@agent-ledger/projections';
import { IsOmittable } from '@agent-ledger/validation';

/** The body of `POST /projections/rebuild` (optional; unknown fields are refused). */
export class StartRebuildDto {
  /** The projection to rebuild. @default every projection */
  @IsOmittable()
  @IsIn(PROJECTION_NAMES)
  @IsString()
  projection?: ProjectionName;
}
