/** The two output streams of a process, as far as {@link exitWhenFlushed} needs them. */
export interface FlushableStreams {
  readonly stdout: { write(chunk: string, callback: () => void): boolean };
  readonly stderr: { write(chunk: string, callback: () => void): boolean };
}

/**
 * Ends the process with `code` once everything written to standard output and
 * standard error has been handed to the system. A `process.exit` right after
 * a write can cut the output short where writes to a pipe are asynchronous
 * (macOS: `agent-ledger runs list | less`); an empty write's callback runs
 * after every write before it.
 */
export function exitWhenFlushed(code: number, streams: FlushableStreams = process, exit: (code: number) => void = (c) => process.exit(c)): void {
  process.exitCode = code;
  let pending = 2;
  const flushed = (): void => {
    pending -= 1;
    if (pending === 0) exit(code);
  };
  streams.stdout.write('', flushed);
  streams.stderr.write('', flushed);
}
