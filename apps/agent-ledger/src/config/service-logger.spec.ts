import { serviceLogger } from './service-logger';

/** What `log` wrote on standard output. */
function logged(logger: ReturnType<typeof serviceLogger>): string {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    logger.log('agent-ledger listening', 'Bootstrap');
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}

const ESCAPE = '\u001b[';

describe('the service logger', () => {
  it('text: colours on a terminal only, and never with NO_COLOR', () => {
    expect(logged(serviceLogger({ logFormat: 'text' }, {}, { isTTY: true }))).toContain(ESCAPE);
    expect(logged(serviceLogger({ logFormat: 'text' }, {}, { isTTY: false }))).not.toContain(ESCAPE);
    expect(logged(serviceLogger({ logFormat: 'text' }, { NO_COLOR: '1' }, { isTTY: true }))).not.toContain(ESCAPE);
    expect(logged(serviceLogger({ logFormat: 'text' }, {}, { isTTY: false }))).toMatch(/LOG \[Bootstrap\] agent-ledger listening\n$/);
  });

  it('json: one JSON object a line, with the level, the context and the message, even on a terminal', () => {
    const line = logged(serviceLogger({ logFormat: 'json' }, {}, { isTTY: true }));
    expect(line).not.toContain(ESCAPE);
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toMatchObject({ level: 'log', context: 'Bootstrap', message: 'agent-ledger listening', pid: process.pid });
  });
});
