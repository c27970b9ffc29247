import type { ApiKeyEntry } from './auth/api-keys';

/**
 * How requests are authenticated.
 * - `api-keys`: every route but `/health` and `/ready` needs a configured key;
 * - `disabled-on-loopback`: **development only**: no key is asked for. Allowed
 *   only when the API listens on a loopback address; announced loudly at
 *   start-up and in `GET /ready`.
 */
export const AUTH_MODES = ['api-keys', 'disabled-on-loopback'] as const;
/** One of {@link AUTH_MODES}. */
export type AuthMode = (typeof AUTH_MODES)[number];

/** The authentication settings. */
export interface AuthSettings {
  /** `AUTH_MODE` in the service. @default `api-keys` when keys are configured; `disabled-on-loopback` when none are and `HOST` is loopback */
  readonly mode: AuthMode;
  /** `setting` when the mode was chosen, `default` when it was inferred (no key configured, loopback host). */
  readonly modeSource: 'setting' | 'default';
  /** The keys, hashed (`API_KEYS` or the file's `auth.apiKeys` in the service; see `parseApiKeyEntries`). */
  readonly apiKeys: readonly ApiKeyEntry[];
}

/**
 * The HTTP API's settings. The service's configuration has every one of
 * them (same names); a host gives them to `AgentLedgerHttpModule.forRoot`.
 */
export interface HttpApiOptions {
  /** Who may call the API. */
  readonly auth: AuthSettings;
  /** The address the API listens on (named in the development mode's warnings). */
  readonly host: string;
  /** The largest JSON body accepted (413 above it). */
  readonly httpBodyLimitBytes: number;
  /** How often an idle event stream sends a comment line, so proxies keep it open. */
  readonly sseHeartbeatMs: number;
  /** `GET /ready` answers 503 when a projection is this many events (or more) behind its source's head. */
  readonly readyMaxProjectionLag: number;
  /**
   * The folder of the built console (`index.html`, `assets/`), served under
   * `/console/`. A folder without `index.html` is not an error: `/console/`
   * answers 404 `CONSOLE_NOT_BUILT`.
   */
  readonly consoleDir: string;
}

/** Injection token of the {@link HttpApiOptions} the HTTP API was given. */
export const HTTP_API_OPTIONS = Symbol('agent-ledger:HttpApiOptions');
