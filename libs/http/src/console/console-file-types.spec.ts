import { consoleCacheControlOf, consoleContentTypeOf, IMMUTABLE_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL, UNKNOWN_CONTENT_TYPE } from './console-file-types';

describe('console file types and caching', () => {
  it.each([
    ['index.html', 'text/html; charset=utf-8'],
    ['assets/a.js', 'text/javascript; charset=utf-8'],
    ['assets/a.mjs', 'text/javascript; charset=utf-8'],
    ['assets/a.CSS', 'text/css; charset=utf-8'],
    ['a.svg', 'image/svg+xml'],
    ['a.png', 'image/png'],
    ['favicon.ico', 'image/x-icon'],
    ['a.json', 'application/json; charset=utf-8'],
    ['assets/a.js.map', 'application/json; charset=utf-8'],
    ['a.woff2', 'font/woff2'],
    ['robots.txt', 'text/plain; charset=utf-8'],
    ['a.exe', UNKNOWN_CONTENT_TYPE],
    ['README', UNKNOWN_CONTENT_TYPE],
  ])('%s is %s', (path, type) => {
    expect(consoleContentTypeOf(path)).toBe(type);
  });

  it('caches assets/ for a year, immutable; revalidates everything else, index.html first', () => {
    expect(consoleCacheControlOf('assets/index-abc.js')).toBe(IMMUTABLE_CACHE_CONTROL);
    expect(IMMUTABLE_CACHE_CONTROL).toBe('public, max-age=31536000, immutable');
    expect(consoleCacheControlOf('index.html')).toBe(REVALIDATE_CACHE_CONTROL);
    expect(consoleCacheControlOf('favicon.ico')).toBe('no-cache');
    expect(consoleCacheControlOf('assetsx/a.js')).toBe('no-cache');
  });
});
