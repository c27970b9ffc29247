import type { HttpApiOptions } from '../http-api-options';

/** The sentence that says authentication is off, for the start-up log and `GET /ready`. */
export function authDisabledWarning(config: Pick<HttpApiOptions, 'auth' | 'host'>): string {
  const why = config.auth.modeSource === 'default' ? 'no API key is configured (API_KEYS) and HOST is loopback' : 'AUTH_MODE=disabled-on-loopback';
  return (
    `AUTHENTICATION IS DISABLED (${why}): every process on this machine may call every route of the API on ${config.host}. ` +
    'For development only: configure API keys (API_KEYS or auth.apiKeys) before anything else uses this service.'
  );
}

/** The loud start-up banner of the development mode, one line each. */
export function authDisabledBanner(config: Pick<HttpApiOptions, 'auth' | 'host'>): string[] {
  const rule = '!'.repeat(78);
  return [rule, `!!! ${authDisabledWarning(config)}`, rule];
}
