/**
 * Keeps only the outcome of the latest request of a page: a slower answer to
 * an earlier request (other filters, an earlier refresh) never replaces a
 * later one's. Without it, clearing one filter and setting another could
 * leave the list showing the first request's rows under the second's
 * filters, for good: nothing reads it again until the next event.
 */
export class LatestOnly {
  private latest = 0;

  /** Calls `apply` with `request`'s answer, or `fail` with its error, unless a later request was tracked meanwhile. */
  track<T>(request: Promise<T>, apply: (answer: T) => void, fail: (error: unknown) => void): void {
    const id = ++this.latest;
    request.then(
      (answer) => {
        if (id === this.latest) apply(answer);
      },
      (error: unknown) => {
        if (id === this.latest) fail(error);
      },
    );
  }
}
