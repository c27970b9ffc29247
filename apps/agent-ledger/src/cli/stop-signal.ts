/** A signal that long-running verbs (events follow, serve, worker) stop on. */
export interface StopSignal {
  readonly signal: AbortSignal;
  /** Removes the process listeners (no-op for an injected signal). */
  dispose(): void;
}

/**
 * The injected signal when there is one (tests), else one aborted by the
 * first SIGINT (Ctrl-C) or SIGTERM of this process, with the signal's name as
 * its reason.
 */
export function stopSignalOf(injected: AbortSignal | undefined): StopSignal {
  if (injected !== undefined) return { signal: injected, dispose: () => undefined };
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => controller.abort(name);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Resolves when `signal` is aborted. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
