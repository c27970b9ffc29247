/**
 * The Content-Security-Policy of every answer of the console's routes: its
 * own scripts, styles, images (and `data:` images), fonts and API calls
 * only; no inline script or style, no plugin, no `<base>`, no form posting,
 * no framing. The console's build emits no inline script or style
 * (`apps/console/vite.config.ts`); the browser tests import this constant.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The headers every answer of the console's routes carries (files,
 * redirects and errors alike): the CSP above, no MIME sniffing, no
 * `Referer` (a run id in the URL stays here), no framing (old browsers read
 * `X-Frame-Options`), and a browsing context of its own.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
});
