import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { AuthMode } from '../http-api-options';
import { AUTH_MODES } from '../http-api-options';
import type { ReadinessReport } from '../health/readiness.service';
import type { DocMatches } from './doc-matches';

/** The `auth` of the readiness report in the OpenAPI document. */
@ApiSchema({ name: 'ReadinessAuth', description: 'How requests are authenticated' })
export class ReadinessAuthDoc {
  @ApiProperty({ enum: AUTH_MODES })
  readonly mode!: AuthMode;

  @ApiPropertyOptional({ type: String, description: 'In the development mode (authentication disabled): a warning (it does not make the service unready)' })
  readonly warning?: string;
}

const _matches: DocMatches<ReadinessAuthDoc, ReadinessReport['auth']> = true;
