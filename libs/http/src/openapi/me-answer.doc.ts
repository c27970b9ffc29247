import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApiScope } from '../auth/api-keys';
import { API_SCOPES } from '../auth/api-keys';
import type { AuthMode } from '../http-api-options';
import { AUTH_MODES } from '../http-api-options';
import type { MeAnswer } from '../me/me.controller';
import type { DocMatches } from './doc-matches';

/** {@link MeAnswer} (`GET /me`) in the OpenAPI document. */
@ApiSchema({ name: 'MeAnswer', description: "What the caller's API key may do" })
export class MeAnswerDoc implements MeAnswer {
  @ApiProperty({ type: String, nullable: true, description: "The key's id; null in the development mode (no key is asked for)" })
  readonly keyId!: string | null;

  @ApiProperty({ enum: API_SCOPES, isArray: true, description: "The key's scopes (every scope in the development mode)" })
  readonly scopes!: readonly ApiScope[];

  @ApiProperty({ type: [String], nullable: true, description: 'The agents whose runs it may start and read; null: every agent' })
  readonly agents!: readonly string[] | null;

  @ApiProperty({ enum: AUTH_MODES, description: 'How this service authenticates requests' })
  readonly authMode!: AuthMode;
}

const _matches: DocMatches<MeAnswerDoc, MeAnswer> = true;
