import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import type { HttpApiOptions } from '../http-api-options';
import { HTTP_API_OPTIONS } from '../http-api-options';
import type { ApiCaller } from './api-caller';
import { CALLER_PROPERTY, DEVELOPMENT_CALLER, keyCaller } from './api-caller';
import { ApiKeyVerifier } from './api-key-verifier';
import { AuthenticationRequiredError, ScopeMissingError } from './auth.errors';
import { assertEntitledToRuns } from './run-entitlement';
import type { RouteAccess } from './auth.decorators';
import { ACROSS_RUNS, DEFAULT_ROUTE_ACCESS, ROUTE_ACCESS } from './auth.decorators';

/** The header that tells a client authentication is disabled. */
export const AUTH_DISABLED_HEADER = 'X-Agent-Ledger-Auth';

type ApiRequest = IncomingMessage & { params?: Record<string, string>; query?: Record<string, unknown>; [CALLER_PROPERTY]?: ApiCaller };

/**
 * The application-wide guard (it covers every controller of the service,
 * those added later included):
 *
 * 1. a `@Public()` route passes;
 * 2. with `AUTH_MODE=disabled-on-loopback`, every route passes as the
 *    development caller (and the answer carries `X-Agent-Ledger-Auth: disabled-on-loopback`);
 * 3. otherwise the key (`Authorization: Bearer <key>` or `X-API-Key: <key>`)
 *    must match a configured one (401), and hold one of the route's scopes
 *    (`@RequireScope`; `operate` for a route that declares none) (403);
 * 4. a key limited to some agents: a route with a `runId` (path, else query)
 *    answers 400 for a value that is not a run id (as for any key), 404 for a
 *    run of another agent, as if it did not exist; an
 *    `@AcrossRuns()` route without a `runId` is refused (403).
 *
 * The caller is left on the request for `@Caller()`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: ApiKeyVerifier,
    private readonly queries: QueryBus,
    @Inject(HTTP_API_OPTIONS) private readonly config: HttpApiOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, targets) ?? DEFAULT_ROUTE_ACCESS;
    if (access.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<ApiRequest>();
    if (this.config.auth.mode === 'disabled-on-loopback') {
      context.switchToHttp().getResponse<ServerResponse>().setHeader(AUTH_DISABLED_HEADER, 'disabled-on-loopback');
      request[CALLER_PROPERTY] = DEVELOPMENT_CALLER;
      return true;
    }
    const entry = await this.verifier.verify(presentedKey(request));
    if (entry === null) throw new AuthenticationRequiredError('invalid');
    const caller = keyCaller(entry);
    if (access.kind === 'scopes' && !access.scopes.some((scope) => caller.scopes.includes(scope))) throw new ScopeMissingError(caller.keyId, access.scopes);
    if (caller.agents !== null) {
      const fromQuery = request.query?.runId;
      const fromPath = request.params?.runId;
      await assertEntitledToRuns(this.queries, caller, {
        runId: fromPath ?? (typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined),
        from: fromPath === undefined ? 'query' : 'path',
        acrossRuns: this.reflector.get<boolean | undefined>(ACROSS_RUNS, context.getHandler()) === true,
      });
    }
    request[CALLER_PROPERTY] = caller;
    return true;
  }
}

/**
 * The key of a request: `Authorization: Bearer <key>`, else `X-API-Key: <key>`.
 * @throws AuthenticationRequiredError `missing` or `malformed`
 */
function presentedKey(request: IncomingMessage): string {
  const authorization = request.headers.authorization;
  if (authorization !== undefined && authorization.trim() !== '') {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization.trim());
    if (match === null) throw new AuthenticationRequiredError('malformed');
    return match[1] as string;
  }
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || key.trim() === '') throw new AuthenticationRequiredError('missing');
  return key.trim();
}
