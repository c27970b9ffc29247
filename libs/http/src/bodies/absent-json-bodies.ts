import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyMiddleware } from './refuse-unreadable-bodies';

/**
 * Tells an empty JSON body (`Content-Type: application/json` and zero bytes)
 * as absent, as a request without a body is: the JSON body parser makes `{}`
 * of it, and a route whose body is required would then name its first
 * missing field instead of the body. `verify` is the parser's hook (it sees
 * the bytes read); `middleware`, installed right after the parser, sets the
 * body of such a request back to `undefined`.
 */
export class AbsentJsonBodies {
  private readonly empty = new WeakSet<IncomingMessage>();

  /** The JSON body parser's `verify` option. */
  readonly verify = (request: IncomingMessage, _response: ServerResponse, bytes: Buffer): void => {
    if (bytes.length === 0) this.empty.add(request);
  };

  /** The middleware after the JSON body parser. */
  readonly middleware: BodyMiddleware = (request, _response, next) => {
    if (this.empty.has(request)) (request as IncomingMessage & { body?: unknown }).body = undefined;
    next();
  };
}
