/** A signal that fires when its parent does or when a time limit passes, for one call. */
export interface DeadlineSignal {
  /** Fires with the parent's reason, or with a `TimeoutError` `DOMException` (as `AbortSignal.timeout`'s) when the time passed first. */
  readonly signal: AbortSignal;
  /** Whether it fired because the time passed. */
  readonly timedOut: boolean;
  /** Ends it: the timer is cleared and the parent no longer listened to, so the signal never fires after this. */
  dispose(): void;
}

/**
 * What `AbortSignal.any([parent, AbortSignal.timeout(timeoutMs)])` gives, for
 * one call, without its costs: that pair keeps its timer (and its signals)
 * alive until the time passes, however early the call ended (a write's
 * deadline is minutes: a busy worker held hundreds of thousands), and
 * `AbortSignal.any` registers the new signal with the parent for good. Here
 * the caller disposes of it when the call settles. The timer (real time, as
 * `AbortSignal.timeout`'s) does not keep the process alive.
 */
export function deadlineSignal(parent: AbortSignal, timeoutMs: number): DeadlineSignal {
  const controller = new AbortController();
  let timedOut = false;
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, timedOut, dispose: () => undefined };
  }
  const onParentAbort = (): void => {
    clearTimeout(timer);
    controller.abort(parent.reason);
  };
  const timer = setTimeout(() => {
    parent.removeEventListener('abort', onParentAbort);
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}
