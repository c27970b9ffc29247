/**
 * Reads an HTTP `Retry-After` header: either delay-seconds (`120`) or an
 * HTTP-date (`Wed, 21 Oct 2026 07:28:00 GMT`), relative to `nowMs`.
 *
 * @returns the delay in milliseconds (0 for a date in the past), or
 *   `undefined` when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(text)) return undefined;
  return Math.max(0, at - nowMs);
}
