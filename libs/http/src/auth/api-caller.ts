import { createParamDecorator } from '@nestjs/common';
import type { ExecutionContext } from '@nestjs/common';
import type { Principal } from '@agent-ledger/domain';
import { apiKeyPrincipal, DEVELOPMENT_PRINCIPAL } from '@agent-ledger/domain';
import type { ApiScope } from './api-keys';
import { API_SCOPES } from './api-keys';

/** Who is calling: the API key the request authenticated with. */
export interface ApiCaller {
  /** The key's `id` (`development` when authentication is disabled). */
  readonly keyId: string;
  /**
   * Who the caller is, as every decision records it: `{ kind: 'apiKey', id }`
   * with API keys, `{ kind: 'development' }` when authentication is disabled.
   * Made by the guard with the caller, so the two cannot disagree.
   */
  readonly principal: Principal;
  readonly scopes: readonly ApiScope[];
  /** The agents whose runs it may submit and read; null: every agent. */
  readonly agents: readonly string[] | null;
}

/** The caller when authentication is disabled (`AUTH_MODE=disabled-on-loopback`): every scope, every agent. */
export const DEVELOPMENT_CALLER: ApiCaller = Object.freeze({ keyId: 'development', principal: DEVELOPMENT_PRINCIPAL, scopes: API_SCOPES, agents: null });

/** The caller authenticated by the API key `entry`. */
export function keyCaller(entry: { readonly id: string; readonly scopes: readonly ApiScope[]; readonly agents: readonly string[] | null }): ApiCaller {
  return { keyId: entry.id, principal: apiKeyPrincipal(entry.id), scopes: entry.scopes, agents: entry.agents };
}

/** The request property the guard puts the caller in. */
export const CALLER_PROPERTY = 'agentLedgerCaller';

/** Whether the caller may read and submit runs of `agent`. */
export function mayUseAgent(caller: ApiCaller, agent: string | null): boolean {
  return caller.agents === null || (agent !== null && caller.agents.includes(agent));
}

/**
 * The caller of the request, as the API key guard authenticated it. A route
 * that takes `@Caller()` records who acted, so it must never be public: on a
 * route the guard let through without a caller (a `@Public()` one) it throws
 * (a 500, a bug to fix), instead of making up a caller.
 */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): ApiCaller => {
  const request = context.switchToHttp().getRequest<Record<string, unknown>>();
  const caller = request[CALLER_PROPERTY] as ApiCaller | undefined;
  if (caller === undefined) throw new Error('@Caller() on a route without an authenticated caller: a route that records who acted must not be public');
  return caller;
});
