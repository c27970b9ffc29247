import type { SseFrame } from './sse-parser';
import { SseParser } from './sse-parser';
import { readSseFrames } from './sse-reader';

/** A stream whose chunks are the given byte arrays. */
function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

async function framesOf(chunks: readonly Uint8Array[]): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const frame of readSseFrames(streamOf(chunks))) frames.push(frame);
  return frames;
}

// Every line ending (LF, CRLF, CR), a BOM, multi-byte characters (2, 3 and 4 bytes), comments, retry,
// a multi-line data, a field without a colon, an unknown field, an event without data (not dispatched),
// and an unfinished event at the end (never dispatched).
const WIRE =
  '\uFEFFretry: 1000\n: events of run r1\n\n' +
  'id: 1:1\nevent: RunRequested\ndata: {"type":"RunRequested","input":"caf\u00e9 \u20ac \u{1F600}"}\n\n' +
  ': heartbeat\r\n\r\n' +
  'id: 2:2\r\nevent: RunClaimed\r\ndata: line one\r\ndata: line two\r\n\r\n' +
  'id: 3:3\revent: StepStarted\rdata:no-space\runknown: x\rdata\r\r' +
  'event: ignored-without-data\n\n' +
  'id: 4:4\ndata: {"last":true}\n\n' +
  'id: 5:5\ndata: unfinished';

const EXPECTED: SseFrame[] = [
  { id: '1:1', event: 'RunRequested', data: '{"type":"RunRequested","input":"caf\u00e9 \u20ac \u{1F600}"}' },
  { id: '2:2', event: 'RunClaimed', data: 'line one\nline two' },
  { id: '3:3', event: 'StepStarted', data: 'no-space\n' },
  { id: '4:4', event: 'message', data: '{"last":true}' },
];

describe('SseParser and readSseFrames', () => {
  const bytes = new TextEncoder().encode(WIRE);

  it('reads a whole stream in one chunk', async () => {
    expect(await framesOf([bytes])).toEqual(EXPECTED);
  });

  it('reads the same events whatever byte offset the stream is split at (inside a CRLF and inside a UTF-8 character included)', async () => {
    for (let offset = 0; offset <= bytes.length; offset++) {
      const frames = await framesOf([bytes.slice(0, offset), bytes.slice(offset)]);
      expect({ offset, frames }).toEqual({ offset, frames: EXPECTED });
    }
  });

  it('reads the same events one byte at a time', async () => {
    expect(await framesOf([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(EXPECTED);
  });

  it('reads the same events split at every pair of offsets', async () => {
    // A bounded sample of three-chunk splits: every first offset, the second 1 to 7 bytes later.
    for (let first = 0; first < bytes.length; first++) {
      for (let gap = 1; gap <= 7 && first + gap <= bytes.length; gap++) {
        const frames = await framesOf([bytes.slice(0, first), bytes.slice(first, first + gap), bytes.slice(first + gap)]);
        expect({ first, gap, frames }).toEqual({ first, gap, frames: EXPECTED });
      }
    }
  });

  it('carries the last id over to a frame without one (the last event id), but not the event type', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1:1\nevent: RunRequested\ndata: {"a":1}\n\ndata: {"b":2}\n\n')).toEqual([
      { id: '1:1', event: 'RunRequested', data: '{"a":1}' },
      { id: '1:1', event: 'message', data: '{"b":2}' },
    ]);
  });

  it('keeps the last retry and ignores an id holding NUL', () => {
    const parser = new SseParser();
    expect(parser.push('retry: 250\nretry: x\nid: a\u0000b\ndata: 1\n\n')).toEqual([{ id: null, event: 'message', data: '1' }]);
    expect(parser.retryMs).toBe(250);
  });

  it('treats a CR at the end of one chunk and an LF at the start of the next as one line end', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\n')).toEqual([]);
    expect(parser.push('\r')).toEqual([{ id: null, event: 'message', data: 'a' }]);
    expect(parser.push('\ndata: b\n\n')).toEqual([{ id: null, event: 'message', data: 'b' }]);
  });

  it('cancels the body when the iteration ends early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: 1\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const frame of readSseFrames(body)) {
      expect(frame.data).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
