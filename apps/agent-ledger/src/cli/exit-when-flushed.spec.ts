import { exitWhenFlushed } from './exit-when-flushed';

/** A stream whose writes complete only when the test says so, as a pipe's do on macOS. */
function slowStream() {
  const callbacks: (() => void)[] = [];
  return { write: (_chunk: string, callback: () => void) => (callbacks.push(callback), false), flush: () => callbacks.splice(0).forEach((cb) => cb()) };
}

describe('exitWhenFlushed', () => {
  const exitCodeBefore = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCodeBefore;
  });

  it('exits only once both standard output and standard error are flushed, with the code', () => {
    const stdout = slowStream();
    const stderr = slowStream();
    const exits: number[] = [];
    exitWhenFlushed(4, { stdout, stderr }, (code) => exits.push(code));
    expect(exits).toEqual([]);
    stdout.flush();
    expect(exits).toEqual([]);
    stderr.flush();
    expect(exits).toEqual([4]);
    expect(process.exitCode).toBe(4);
  });
});
