/** The URL path the console is served under (its `base` in `apps/console/vite.config.ts`). */
export const CONSOLE_URL_PREFIX = '/console/';

/** The index file of the console. */
export const CONSOLE_INDEX = 'index.html';

const SEGMENT = /^[A-Za-z0-9_@~+=,-][A-Za-z0-9._@~+=,-]*$/;

/**
 * The file a console URL names, relative to the console's folder
 * (`/`-separated), or null when the URL may not name a file there.
 *
 * `rawPath` is the request's path as sent (percent-encoded, without the
 * query). It is decoded once; then every segment must be a plain name:
 * letters, digits and `. _ @ ~ + = , -`, not starting with a dot. That
 * refuses `..` and `.` (sent as is or encoded: `%2e%2e`, `%2E.`, `..%2f`,
 * `%252e` after one decoding stays `%2e`, which holds a `%`), absolute paths
 * (`//etc/passwd`, `%2fetc`), backslashes, NUL and other control bytes, empty
 * segments, hidden files, and a malformed encoding. `/console/` names
 * `index.html`.
 */
export function consoleRelativePath(rawPath: string): string | null {
  if (!rawPath.startsWith(CONSOLE_URL_PREFIX)) return null;
  const encoded = rawPath.slice(CONSOLE_URL_PREFIX.length);
  if (encoded === '') return CONSOLE_INDEX;
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    // A malformed percent-encoding names no file: the caller answers 404.
    return null;
  }
  const segments = decoded.split('/');
  return segments.every((segment) => SEGMENT.test(segment)) ? segments.join('/') : null;
}
