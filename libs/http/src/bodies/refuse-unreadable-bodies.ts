import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpErrorAnswerOf } from '../errors/http-error-mapping';
import { replyJson } from '../json-reply';
import { isJsonMediaType, mediaTypeOf } from './media-type';
import { UnsupportedMediaTypeError } from './unsupported-media-type.error';

/** A middleware of Node's HTTP server as Express calls it. */
export type BodyMiddleware = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Refuses, on every route and before any handler or body parser runs, a
 * request whose body the API cannot read: a non-empty body whose
 * `Content-Type` is not `application/json` (or that has none) is answered
 * 415 `UNSUPPORTED_MEDIA_TYPE` through the API's error mapping. A JSON body
 * goes on to the JSON body parser; a request without a body, or with an
 * empty one (`Content-Length: 0`, a chunked body of no chunk), goes on
 * whatever its `Content-Type`.
 *
 * Whether a body is empty is known from `Content-Length`; a chunked body (no
 * length) is read until its first byte or its end. A refused body is read and
 * discarded before the answer, so that a client still sending reads the 415
 * and not a reset; past `discardLimitBytes` read (or declared), the answer
 * goes at once with `Connection: close`, and the rest is never read.
 */
export function refuseUnreadableBodies(options: { readonly discardLimitBytes: number }): BodyMiddleware {
  const { discardLimitBytes } = options;
  return (request, response, next) => {
    const mediaType = mediaTypeOf(request.headers['content-type']);
    if (isJsonMediaType(mediaType)) {
      next();
      return;
    }
    if (request.headers['transfer-encoding'] === undefined) {
      // Node's parser has checked Content-Length: absent, or digits.
      const length = Number(request.headers['content-length'] ?? 0);
      if (length === 0) {
        next();
        return;
      }
      if (length > discardLimitBytes) {
        answer(response, mediaType, true);
        return;
      }
      discardThenRefuse(request, response, mediaType, discardLimitBytes, 0);
      return;
    }
    // Chunked: empty only if it ends before its first byte.
    const onData = (chunk: Buffer): void => {
      if (chunk.length === 0) return;
      stopWatching();
      discardThenRefuse(request, response, mediaType, discardLimitBytes, chunk.length);
    };
    const onEnd = (): void => {
      stopWatching();
      next();
    };
    // A client gone before its body was told apart has nobody to answer: Node closes the socket.
    const onClose = (): void => stopWatching();
    const stopWatching = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onClose);
  };
}

/** Reads the rest of a refused body off (`read` bytes of it are read already), then answers 415; past the limit, at once. */
function discardThenRefuse(request: IncomingMessage, response: ServerResponse, mediaType: string | null, limitBytes: number, alreadyRead: number): void {
  let read = alreadyRead;
  const overLimit = (): void => {
    stop();
    answer(response, mediaType, true);
  };
  const onData = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > limitBytes) overLimit();
  };
  const onEnd = (): void => {
    stop();
    answer(response, mediaType, false);
  };
  const onClose = (): void => stop();
  const stop = (): void => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('close', onClose);
  };
  if (read > limitBytes) {
    overLimit();
    return;
  }
  request.on('data', onData);
  request.once('end', onEnd);
  request.once('close', onClose);
  request.resume();
}

function answer(response: ServerResponse, mediaType: string | null, closeConnection: boolean): void {
  const { status, body, headers } = httpErrorAnswerOf(new UnsupportedMediaTypeError(mediaType));
  replyJson(response, status, body, { ...headers, ...(closeConnection ? { Connection: 'close' } : {}) });
}
