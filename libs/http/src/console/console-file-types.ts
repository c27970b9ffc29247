import { extname } from 'node:path';

/** The `Content-Type` of the console's files, by lowercase extension. */
export const CONSOLE_CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
});

/** The type of a file whose extension is not in {@link CONSOLE_CONTENT_TYPES} (with `nosniff`, a browser will not run it). */
export const UNKNOWN_CONTENT_TYPE = 'application/octet-stream';

/** `Cache-Control` of the files under `assets/`: their names carry a hash of their content, so they never change. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** `Cache-Control` of every other file (`index.html` first): revalidated on each use, so a new build shows at once. */
export const REVALIDATE_CACHE_CONTROL = 'no-cache';

/** The `Content-Type` of a console file, by its extension. */
export function consoleContentTypeOf(relativePath: string): string {
  return CONSOLE_CONTENT_TYPES[extname(relativePath).toLowerCase()] ?? UNKNOWN_CONTENT_TYPE;
}

/** The `Cache-Control` of a console file, by its path relative to the console's folder (`/`-separated). */
export function consoleCacheControlOf(relativePath: string): string {
  return relativePath.startsWith('assets/') ? IMMUTABLE_CACHE_CONTROL : REVALIDATE_CACHE_CONTROL;
}
