import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { MeAnswer } from '@agent-ledger/client';
import type { HttpApiOptions } from '../http-api-options';
import type { ApiCaller } from '../auth/api-caller';
import { Caller } from '../auth/api-caller';
import { Authenticated } from '../auth/auth.decorators';
import { HTTP_API_OPTIONS } from '../http-api-options';

/** The body of `GET /me`: what the caller's key may do (the client's contract's type). */
export type { MeAnswer } from '@agent-ledger/client';

/** `GET /me`: the caller's key, as the guard authenticated it (any valid key). */
@ApiTags('service')
@Controller()
export class MeController {
  constructor(@Inject(HTTP_API_OPTIONS) private readonly config: HttpApiOptions) {}

  /** What the caller's key may do, so that a client shows only what it may use. */
  @Get('me')
  @Authenticated()
  @ApiOperation({ summary: "What the caller's API key may do: its id, scopes and agents, and the authentication mode" })
  @ApiOkResponse({ description: "the caller's key" })
  me(@Caller() caller: ApiCaller): MeAnswer {
    const authMode = this.config.auth.mode;
    return { keyId: authMode === 'disabled-on-loopback' ? null : caller.keyId, scopes: [...caller.scopes], agents: caller.agents === null ? null : [...caller.agents], authMode };
  }
}
