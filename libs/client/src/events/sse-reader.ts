import type { SseFrame } from './sse-parser';
import { SseParser } from './sse-parser';

/**
 * The events of an event stream's body, decoded as UTF-8 whatever the split
 * of its bytes into chunks (a character cut between two chunks included; a
 * leading BOM is dropped). Ends when the body ends; cancels the body when
 * the iteration is ended early.
 */
export async function* readSseFrames(body: ReadableStream<Uint8Array>, parser: SseParser = new SseParser()): AsyncGenerator<SseFrame, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        yield* parser.push(decoder.decode());
        return;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Cancelling a body whose connection already failed rejects with that failure, which the read has thrown already.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
