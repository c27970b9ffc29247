/**
 * Wakes live subscriptions when the store changes. A monotonically increasing
 * `version` closes the race between "read found nothing new" and "start
 * waiting": a reader captures the version before reading and waits for a
 * version greater than that.
 */
export class ChangeNotifier {
  private current = 0;
  private readonly waiters = new Set<() => void>();
  private closed = false;

  /**
   * @param onWaitingChange - called with `true` when the first waiter arrives and
   *   `false` when the last one leaves (the SQLite adapter polls only while someone waits).
   */
  constructor(private readonly onWaitingChange: (waiting: boolean) => void = () => undefined) {}

  /** The current change version. */
  get version(): number {
    return this.current;
  }

  /** Records a change and wakes every waiter. */
  notify(): void {
    this.current++;
    this.wakeAll();
  }

  /** Wakes every waiter for good: the store is closing. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  /** Resolves once the version is greater than `since`, the notifier closes, or `signal` aborts. */
  wait(since: number, signal: AbortSignal): Promise<void> {
    if (this.current > since || this.closed || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        if (this.waiters.delete(done) && this.waiters.size === 0) this.onWaitingChange(false);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
      if (this.waiters.size === 1) this.onWaitingChange(true);
    });
  }

  /** Number of waiters (for diagnostics and tests). */
  get waiting(): number {
    return this.waiters.size;
  }

  private wakeAll(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
