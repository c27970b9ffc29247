import { ModelReplyInvalidError } from './model-reply-invalid.error';

/**
 * A model server's 2xx body, parsed as JSON.
 * @throws {@link ModelReplyInvalidError} (`serverError`) naming the start of a body that is not JSON, with the parser's error as its cause.
 */
export function parseReplyJson(bodyText: string, url: string): unknown {
  try {
    return JSON.parse(bodyText);
  } catch (error) {
    throw new ModelReplyInvalidError(`the body is not JSON (${replyExcerpt(bodyText)})`, url, { cause: error });
  }
}

/** `value[key]` when `value` is a JSON object; otherwise undefined. */
export function replyField(value: unknown, key: string): unknown {
  return isReplyObject(value) ? value[key] : undefined;
}

/** Whether a parsed reply value is a JSON object (not null, not a list). */
export function isReplyObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The start of a reply's text (120 characters), quoted, for a message. */
export function replyExcerpt(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}
