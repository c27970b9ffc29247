import { createParamDecorator } from '@nestjs/common';
import type { ExecutionContext } from '@nestjs/common';
import type { ApiScope } from '../../config/api-keys';
import { API_SCOPES } from '../../config/api-keys';

/** Who is calling: the API key the request authenticated with. */
export interface ApiCaller {
  /** The key's `id` (`development` when authentication is disabled). */
  readonly keyId: string;
  readonly scopes: readonly ApiScope[];
  /** The agents whose runs it may submit and read; null: every agent. */
  readonly agents: readonly string[] | null;
}

/** The caller when authentication is disabled (`AUTH_MODE=disabled-on-loopback`): every scope, every agent. */
export const DEVELOPMENT_CALLER: ApiCaller = Object.freeze({ keyId: 'development', scopes: API_SCOPES, agents: null });

/** The request property the guard puts the caller in. */
export const CALLER_PROPERTY = 'agentLedgerCaller';

/** Whether the caller may read and submit runs of `agent`. */
export function mayUseAgent(caller: ApiCaller, agent: string | null): boolean {
  return caller.agents === null || (agent !== null && caller.agents.includes(agent));
}

/** The caller of the request, as the API key guard authenticated it (the development caller on a public route). */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): ApiCaller => {
  const request = context.switchToHttp().getRequest<Record<string, unknown>>();
  return (request[CALLER_PROPERTY] as ApiCaller | undefined) ?? DEVELOPMENT_CALLER;
});
