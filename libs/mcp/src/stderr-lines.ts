import type { Readable } from 'node:stream';
import type { McpLogger } from './mcp-logger';

/** At most this many stderr lines of one server are logged a second; the others are counted, and their number logged. */
export const STDERR_LINES_PER_SECOND = 100;
/** A longer stderr line is cut to this many characters. */
const MAX_LINE_CHARS = 2_000;

/**
 * Logs a stdio server's stderr, a line at a time, each prefixed with the
 * server and its pid (`[mcp fs pid 4242] ...`), at warn level. A chatty
 * server cannot flood the service's log: past
 * {@link STDERR_LINES_PER_SECOND} in a second, lines are dropped, counted
 * ({@link StderrLines.dropped}), and how many were dropped is logged when
 * the second ends. Nothing is dropped silently.
 */
export class StderrLines {
  private pending = '';
  private windowStart = 0;
  private inWindow = 0;
  private droppedInWindow = 0;
  /** Lines dropped since the server was first started. */
  dropped = 0;

  constructor(
    private readonly server: string,
    private readonly logger: McpLogger,
    /** Called for each line dropped. */
    private readonly onDropped: () => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Follows one process's stderr; `pid` is read when each line is logged. */
  follow(stream: Readable, pid: () => number | null | undefined): void {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.pending += chunk;
      let index: number;
      while ((index = this.pending.indexOf('\n')) >= 0) {
        this.line(this.pending.slice(0, index).replace(/\r$/, ''), pid());
        this.pending = this.pending.slice(index + 1);
      }
      if (this.pending.length > MAX_LINE_CHARS) {
        this.line(this.pending, pid());
        this.pending = '';
      }
    });
    stream.on('end', () => {
      if (this.pending !== '') this.line(this.pending, pid());
      this.pending = '';
      this.flushDropped(pid());
    });
  }

  private line(text: string, pid: number | null | undefined): void {
    if (text.trim() === '') return;
    const now = this.now();
    if (now - this.windowStart >= 1_000) {
      this.flushDropped(pid);
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (this.inWindow >= STDERR_LINES_PER_SECOND) {
      // Said when the second ends, even if the server then falls silent.
      if (this.droppedInWindow === 0) setTimeout(() => this.flushDropped(pid), Math.max(0, this.windowStart + 1_000 - now)).unref();
      this.droppedInWindow += 1;
      this.dropped += 1;
      this.onDropped();
      return;
    }
    this.inWindow += 1;
    const cut = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… (${text.length} characters)` : text;
    this.logger.warn(`${this.prefix(pid)} ${cut}`);
  }

  private flushDropped(pid: number | null | undefined): void {
    if (this.droppedInWindow === 0) return;
    this.logger.warn(`${this.prefix(pid)} ${this.droppedInWindow} more stderr lines dropped (over ${STDERR_LINES_PER_SECOND} a second; ${this.dropped} in all)`);
    this.droppedInWindow = 0;
  }

  private prefix(pid: number | null | undefined): string {
    return `[mcp ${this.server} pid ${pid ?? '?'}]`;
  }
}
