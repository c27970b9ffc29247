import { JSON_MEDIA_TYPE } from './media-type';

/**
 * A request carries a body the API cannot read: a non-empty body whose
 * `Content-Type` is not `application/json`, or that has none. Refused with
 * 415 before any handler runs, whatever the route: nothing was recorded.
 */
export class UnsupportedMediaTypeError extends Error {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE' as const;
  /** The media type the API reads. */
  readonly expected = JSON_MEDIA_TYPE;
  /** The media type received (parameters left out); `none` when the request had no `Content-Type`. */
  readonly received: string;

  /** @param mediaType the request's media type, `null` when it has no `Content-Type` */
  constructor(mediaType: string | null) {
    super(
      mediaType === null
        ? `The request has a body and no Content-Type: the API reads ${JSON_MEDIA_TYPE} bodies only (send Content-Type: ${JSON_MEDIA_TYPE}, or no body)`
        : `The request body is "${mediaType}": the API reads ${JSON_MEDIA_TYPE} bodies only (send Content-Type: ${JSON_MEDIA_TYPE}, or no body)`,
    );
    this.name = 'UnsupportedMediaTypeError';
    this.received = mediaType ?? 'none';
  }
}
