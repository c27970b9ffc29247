import { consoleRelativePath } from './console-path';

describe('consoleRelativePath', () => {
  it.each([
    ['/console/', 'index.html'],
    ['/console/index.html', 'index.html'],
    ['/console/assets/index-abc123.js', 'assets/index-abc123.js'],
    ['/console/assets/index-Ab_c~1.css', 'assets/index-Ab_c~1.css'],
    ['/console/assets/x%2Dy.js', 'assets/x-y.js'],
    ['/console/fonts/inter@2x.woff2', 'fonts/inter@2x.woff2'],
  ])('%s names %s', (path, relative) => {
    expect(consoleRelativePath(path)).toBe(relative);
  });

  it.each([
    '/console',
    '/consolex/index.html',
    '/other/console/index.html',
    '/console/..',
    '/console/../package.json',
    '/console/%2e%2e/package.json',
    '/console/%2E%2e%2Fpackage.json',
    '/console/a/%2e%2e/%2e%2e/x',
    '/console/.',
    '/console/./index.html',
    '/console/.env',
    '/console/assets/.hidden.js',
    '/console//etc/passwd',
    '/console/%2fetc%2fpasswd',
    '/console/assets/',
    '/console/a\\..\\b',
    '/console/a%5c..%5cb',
    '/console/index.html%00.js',
    '/console/%00',
    '/console/a%0ab',
    '/console/%252e%252e/x',
    '/console/%',
    '/console/%E0%A4%A',
    '/console/a b',
    '/console/a%20b',
  ])('refuses %s', (path) => {
    expect(consoleRelativePath(path)).toBeNull();
  });
});
