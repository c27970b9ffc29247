import type { ApiScope, MeAnswer as Me } from '@agent-ledger/client';

/** What the console offers a key: each view and action with the scope the service requires for it. */
export interface Permissions {
  readonly readRuns: boolean;
  readonly submitRuns: boolean;
  readonly approve: boolean;
  readonly readAudit: boolean;
  readonly operate: boolean;
  /** `GET /events` reads every run: a key limited to some agents may not open it (it polls instead). */
  readonly streamAllRuns: boolean;
}

/**
 * The console's view of a key's scopes (docs/http-api.md, "Scopes"). The
 * service enforces them; the console only hides what would be refused.
 */
export function permissionsOf(me: Pick<Me, 'scopes' | 'agents'>): Permissions {
  const has = (scope: ApiScope) => me.scopes.includes(scope);
  return {
    readRuns: has('runs:read'),
    submitRuns: has('runs:submit'),
    approve: has('runs:approve'),
    readAudit: has('audit:read'),
    operate: has('operate'),
    streamAllRuns: has('runs:read') && me.agents === null,
  };
}
