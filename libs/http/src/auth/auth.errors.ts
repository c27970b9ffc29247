import type { ApiScope } from './api-keys';

/**
 * No API key, a malformed `Authorization` header, or a key that matches no
 * configured one. Answered 401 with `WWW-Authenticate: Bearer`.
 */
export class AuthenticationRequiredError extends Error {
  readonly code = 'UNAUTHENTICATED' as const;

  constructor(
    /** `missing`: no key was sent; `malformed`: the header is not `Bearer <key>`; `invalid`: no configured key matches. */
    readonly reason: 'missing' | 'malformed' | 'invalid',
  ) {
    super(
      reason === 'missing'
        ? 'An API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>"'
        : reason === 'malformed'
          ? 'The Authorization header must be "Bearer <key>"'
          : 'The API key is not valid: send a key the service is configured with, as "Authorization: Bearer <key>" or "X-API-Key: <key>"',
    );
    this.name = 'AuthenticationRequiredError';
  }
}

/** A valid key without any of the scopes the route accepts. Answered 403. */
export class ScopeMissingError extends Error {
  readonly code = 'SCOPE_MISSING' as const;

  constructor(
    readonly keyId: string,
    /** Any one of these would do. */
    readonly requiredScopes: readonly ApiScope[],
  ) {
    super(`The API key "${keyId}" lacks the scope this route needs (one of: ${requiredScopes.join(', ')})`);
    this.name = 'ScopeMissingError';
  }
}

/**
 * A key limited to some agents asked for something beyond them: to start a
 * run of another agent, or a route that reads every run's data at once
 * (`GET /events`, `GET /audit/review` without `runId`). Answered 403. (A
 * single run of another agent is answered 404, as if it did not exist.)
 */
export class NotEntitledError extends Error {
  readonly code = 'NOT_ENTITLED' as const;

  constructor(
    readonly keyId: string,
    /** The field that names what is out of reach (`agent`), or null for the route as a whole. */
    readonly field: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'NotEntitledError';
  }
}
