import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { refuseUnreadableBodies } from './refuse-unreadable-bodies';

const LIMIT = 16;

/** A request: a stream of body bytes with headers (what the middleware reads of an `IncomingMessage`). */
function fakeRequest(headers: Record<string, string>): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers });
}

/** A response that records what is answered. */
function fakeResponse() {
  const recorded = { statusCode: 0, headers: {} as Record<string, unknown>, body: null as string | null };
  const response = {
    set statusCode(value: number) {
      recorded.statusCode = value;
    },
    setHeader(name: string, value: unknown) {
      recorded.headers[name.toLowerCase()] = value;
    },
    end(payload: string) {
      recorded.body = payload;
    },
  };
  return { response: response as unknown as ServerResponse, recorded };
}

/** Runs the middleware; `next` records its calls. */
function run(headers: Record<string, string>) {
  const request = fakeRequest(headers);
  const { response, recorded } = fakeResponse();
  const nextCalls: unknown[][] = [];
  refuseUnreadableBodies({ discardLimitBytes: LIMIT })(request as unknown as IncomingMessage, response, (...args: unknown[]) => nextCalls.push(args));
  return { request, recorded, nextCalls };
}

/** Lets the stream deliver what was written. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('refuseUnreadableBodies', () => {
  it('passes a JSON body on without reading it', async () => {
    const { request, nextCalls, recorded } = run({ 'content-type': 'application/json; charset=utf-8', 'content-length': '2' });
    request.end('{}');
    await flush();
    expect(nextCalls).toEqual([[]]);
    expect(recorded.body).toBeNull();
    expect(request.read()?.toString()).toBe('{}');
  });

  it.each([
    ['no body', {}],
    ['Content-Length: 0 of text/plain', { 'content-type': 'text/plain', 'content-length': '0' }],
    ['Content-Length: 0 without Content-Type', { 'content-length': '0' }],
  ])('passes a request with %s on', (_what, headers) => {
    expect(run(headers).nextCalls).toEqual([[]]);
  });

  it('refuses a text/plain body with 415 once it is read off, naming the type received and the one expected', async () => {
    const { request, nextCalls, recorded } = run({ 'content-type': 'text/plain', 'content-length': '5' });
    await flush();
    expect(recorded.body).toBeNull();
    request.end('hello');
    await flush();
    expect(nextCalls).toEqual([]);
    expect(recorded.statusCode).toBe(415);
    expect(recorded.headers.connection).toBeUndefined();
    expect(JSON.parse(recorded.body ?? '')).toMatchObject({ statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE', received: 'text/plain', expected: 'application/json' });
  });

  it('answers at once, closing the connection, when the declared length is over the limit', () => {
    const { nextCalls, recorded } = run({ 'content-type': 'application/xml', 'content-length': String(LIMIT + 1) });
    expect(nextCalls).toEqual([]);
    expect(recorded).toMatchObject({ statusCode: 415, headers: { connection: 'close' } });
  });

  it('passes a chunked body that ends before its first byte on', async () => {
    const { request, nextCalls, recorded } = run({ 'transfer-encoding': 'chunked' });
    await flush();
    expect(nextCalls).toEqual([]);
    request.end();
    await flush();
    expect(nextCalls).toEqual([[]]);
    expect(recorded.body).toBeNull();
  });

  it('refuses a chunked body without Content-Type at its end, naming none', async () => {
    const { request, nextCalls, recorded } = run({ 'transfer-encoding': 'chunked' });
    request.write('{"re');
    await flush();
    expect(recorded.body).toBeNull();
    request.end('ason":"x"}');
    await flush();
    expect(nextCalls).toEqual([]);
    expect(recorded.statusCode).toBe(415);
    expect(JSON.parse(recorded.body ?? '')).toMatchObject({ received: 'none', message: expect.stringContaining('no Content-Type') as string });
  });

  it('answers a chunked body at once, closing the connection, when more than the limit arrives', async () => {
    const { request, nextCalls, recorded } = run({ 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' });
    request.write('x'.repeat(LIMIT));
    await flush();
    expect(recorded.body).toBeNull();
    request.write('x');
    await flush();
    expect(nextCalls).toEqual([]);
    expect(recorded).toMatchObject({ statusCode: 415, headers: { connection: 'close' } });
    expect(JSON.parse(recorded.body ?? '')).toMatchObject({ received: 'multipart/form-data' });
  });

  it('answers nothing and calls nothing when the client goes before its chunked body was told apart', async () => {
    const { request, nextCalls, recorded } = run({ 'transfer-encoding': 'chunked' });
    request.destroy();
    await flush();
    expect(nextCalls).toEqual([]);
    expect(recorded.body).toBeNull();
  });
});
