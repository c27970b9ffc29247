/** The one media type the API reads in a request body. */
export const JSON_MEDIA_TYPE = 'application/json';

/** The longest media type an error repeats back to the client (the header is the client's text). */
const MAX_NAMED_LENGTH = 100;

/**
 * The media type of a `Content-Type` header: its `type/subtype`, lower-cased,
 * without parameters (`text/plain; charset=utf-8` is `text/plain`), cut to
 * 100 characters; `null` when the request has no `Content-Type`.
 */
export function mediaTypeOf(header: string | readonly string[] | undefined): string | null {
  if (header === undefined) return null;
  const value = typeof header === 'string' ? header : (header[0] ?? '');
  const semicolon = value.indexOf(';');
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase().slice(0, MAX_NAMED_LENGTH);
}

/**
 * Whether the API reads a body of this media type: `application/json` only
 * (its parameters, such as `charset`, are the JSON body parser's to check).
 * `application/*+json` types (`application/merge-patch+json`,
 * `application/vnd.api+json`...) are not read: each gives JSON a meaning
 * of its own that the API does not implement.
 */
export function isJsonMediaType(mediaType: string | null): boolean {
  return mediaType === JSON_MEDIA_TYPE;
}
