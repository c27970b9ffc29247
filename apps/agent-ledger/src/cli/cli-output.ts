/** Where a CLI verb writes: injected so that verbs can be tested without a terminal. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
  /** Whether standard output is a terminal (progress bars, colours). */
  readonly isTTY: boolean;
}

/** The process's standard output and error. */
export const processOutput: CliOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  get isTTY() {
    return process.stdout.isTTY === true;
  },
};

/** The CLI's exit codes. */
export const ExitCode = {
  /** Done; nothing wrong found. */
  OK: 0,
  /** Done, and it found something wrong (an audit gap, a broken chain). */
  FINDINGS: 1,
  /** The command line is wrong. */
  USAGE: 2,
  /** The command could not be carried out (bad configuration, store or service unreachable, a server error). */
  FAILURE: 3,
  /** The service refused the request (a 4xx answer: bad input, no such run, a conflict, not authorised). */
  REFUSED: 4,
} as const;

/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Formats rows as an aligned plain-text table. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** Formats `[name, value]` pairs as a two-column table without a header (one record). */
export function fields(pairs: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(0, ...pairs.map(([name]) => name.length));
  return pairs.map(([name, value]) => `${name.padEnd(width)}  ${value}`.trimEnd());
}
