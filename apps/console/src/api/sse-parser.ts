/** One Server-Sent Events message: its `id`, `event` and joined `data` lines. */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * An incremental parser of the `text/event-stream` format (the subset the
 * service sends, by the WHATWG rules: `\n`, `\r\n` or `\r` line ends, comment
 * lines, `field: value` or `field:value`, several `data` lines joined with
 * `\n`). Feed it text as it arrives; it returns the messages completed by it.
 * Messages without data (comments, a lone `retry:`) produce nothing.
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event: string | undefined;
  private data: string[] = [];

  /** Parses `chunk` and returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (match === null || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message !== undefined) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      const message = this.data.length === 0 ? undefined : { id: this.id, event: this.event, data: this.data.join('\n') };
      this.event = undefined;
      this.data = [];
      return message;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }
}
