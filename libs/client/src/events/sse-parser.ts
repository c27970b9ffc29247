/**
 * A Server-Sent Events parser (the WHATWG "event stream interpretation"),
 * fed text in chunks split anywhere: lines end with LF, CRLF or CR (a CR at
 * the end of one chunk and an LF at the start of the next are one line end);
 * comments (`: heartbeat`) are dropped; an event is dispatched at a blank
 * line, and one left unfinished when the stream ends never is.
 */

/** One dispatched event. */
export interface SseFrame {
  /** `event:`; `message` when the frame names none. */
  readonly event: string;
  /** The `data:` lines, joined by LF. */
  readonly data: string;
  /** The last event id at the time of dispatch (an `id:` of this frame or an earlier one); null while none was sent. */
  readonly id: string | null;
}

/** Parses an event stream's text, chunk by chunk. */
export class SseParser {
  private buffer = '';
  private skipLeadingLf = false;
  private data: string[] = [];
  private hasData = false;
  private eventType = '';
  private lastEventId: string | null = null;
  /** The last `retry:` the server sent, in ms; null while none. */
  retryMs: number | null = null;

  /** Feeds the next chunk of text; returns the events it completes, in order. */
  push(chunk: string): SseFrame[] {
    if (chunk.length === 0) return [];
    let text = chunk;
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    const buffer = this.buffer + text;
    const frames: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const cr = buffer.indexOf('\r', start);
      const lf = buffer.indexOf('\n', start);
      if (cr === -1 && lf === -1) break;
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      const line = buffer.slice(start, end);
      if (buffer[end] === '\r') {
        if (end + 1 < buffer.length) {
          start = buffer[end + 1] === '\n' ? end + 2 : end + 1;
        } else {
          start = end + 1;
          this.skipLeadingLf = true;
        }
      } else {
        start = end + 1;
      }
      this.line(line, frames);
    }
    this.buffer = buffer.slice(start);
    return frames;
  }

  private line(line: string, frames: SseFrame[]): void {
    if (line === '') {
      this.dispatch(frames);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        // Unknown fields are ignored, as the standard says.
        break;
    }
  }

  private dispatch(frames: SseFrame[]): void {
    if (this.hasData) frames.push({ event: this.eventType === '' ? 'message' : this.eventType, data: this.data.join('\n'), id: this.lastEventId });
    this.data = [];
    this.hasData = false;
    this.eventType = '';
  }
}
