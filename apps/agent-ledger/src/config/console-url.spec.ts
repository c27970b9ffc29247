import { consoleUrlLine } from './console-url';

describe('consoleUrlLine', () => {
  it('names the address the service listens on when a browser can open it', () => {
    expect(consoleUrlLine('127.0.0.1', 3000)).toBe('console: http://127.0.0.1:3000/console/');
    expect(consoleUrlLine('::1', 3001)).toBe('console: http://[::1]:3001/console/');
  });

  it('names localhost, and says why, for a wildcard address', () => {
    for (const host of ['0.0.0.0', '::']) {
      const line = consoleUrlLine(host, 3000);
      expect(line.startsWith('console: http://localhost:3000/console/ ')).toBe(true);
      expect(line).toContain(`all interfaces, ${host}`);
    }
  });
});
