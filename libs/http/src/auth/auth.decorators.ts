import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { ApiScope } from './api-keys';

/** What a route asks of its caller. */
export type RouteAccess =
  | { readonly kind: 'public' }
  /** Any valid key, whatever its scopes. */
  | { readonly kind: 'authenticated' }
  /** A key with any one of `scopes`. */
  | { readonly kind: 'scopes'; readonly scopes: readonly ApiScope[] };

/** Metadata key of {@link RouteAccess}. */
export const ROUTE_ACCESS = 'agent-ledger:routeAccess';
/** Metadata key of {@link AcrossRuns}. */
export const ACROSS_RUNS = 'agent-ledger:acrossRuns';

/**
 * What a route that declares nothing asks: the `operate` scope. A new route
 * is therefore closed to every key but an operator's until it says otherwise.
 */
export const DEFAULT_ROUTE_ACCESS: RouteAccess = Object.freeze({ kind: 'scopes', scopes: ['operate'] as const });

/** The security requirements of the OpenAPI document: a bearer token, or the `X-API-Key` header. */
export const BEARER_SCHEME = 'bearer';
export const API_KEY_HEADER_SCHEME = 'apiKeyHeader';

function documented(description: string): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBearerAuth(BEARER_SCHEME),
    ApiSecurity(API_KEY_HEADER_SCHEME),
    ApiUnauthorizedResponse({ description: 'no API key, or not a valid one (`UNAUTHENTICATED`)' }),
    ApiForbiddenResponse({ description }),
  );
}

/**
 * The route needs a key with any one of `scopes` (on a controller: each of
 * its routes, unless the route says otherwise).
 * @example @RequireScope('runs:read')
 */
export function RequireScope(...scopes: [ApiScope, ...ApiScope[]]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ROUTE_ACCESS, { kind: 'scopes', scopes } satisfies RouteAccess),
    ApiExtension('x-required-scopes', scopes),
    documented(`the key lacks the scope (\`SCOPE_MISSING\`; one of: ${scopes.join(', ')}), or is limited to other agents (\`NOT_ENTITLED\`)`),
  );
}

/** The route needs a valid key, whatever its scopes. */
export function Authenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(ROUTE_ACCESS, { kind: 'authenticated' } satisfies RouteAccess), ApiBearerAuth(BEARER_SCHEME), ApiSecurity(API_KEY_HEADER_SCHEME), ApiUnauthorizedResponse({ description: 'no API key, or not a valid one (`UNAUTHENTICATED`)' }));
}

/** The route needs no key (`/health`, `/ready`). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess);
}

/**
 * The route reads the data of every run at once: a key limited to some
 * agents is refused (403 `NOT_ENTITLED`), unless the request names one run
 * (`runId` in the path or the query) the key is entitled to.
 */
export function AcrossRuns(): MethodDecorator {
  return SetMetadata(ACROSS_RUNS, true);
}
