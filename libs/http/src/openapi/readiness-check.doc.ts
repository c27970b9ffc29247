import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ReadinessCheck } from '../health/readiness.service';
import type { DocMatches } from './doc-matches';

/** {@link ReadinessCheck} (one store's probe) in the OpenAPI document. */
@ApiSchema({ name: 'ReadinessCheck', description: 'One check of the readiness report' })
export class ReadinessCheckDoc implements ReadinessCheck {
  @ApiProperty({ type: Boolean })
  readonly ok!: boolean;

  @ApiPropertyOptional({ type: String, description: 'Why not, when not ok: an error code (STORE_UNAVAILABLE, TIMEOUT...) or LAGGING' })
  readonly problem?: string;

  @ApiPropertyOptional({ type: String })
  readonly message?: string;
}

const _matches: DocMatches<ReadinessCheckDoc, ReadinessCheck> = true;
