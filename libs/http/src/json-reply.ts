import type { ServerResponse } from 'node:http';

/**
 * Answers JSON with a status chosen at run time (202 or 200 for the same
 * route). Controllers that need it take the response with `@Res()`; errors
 * they throw before answering still go to the API's exception filter.
 */
export function replyJson(response: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const payload = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(payload));
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.end(payload);
}
