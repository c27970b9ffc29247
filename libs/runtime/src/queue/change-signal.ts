/**
 * Wakes waiters when something changed: a small condition variable for
 * worker loops. A notification with no waiter is remembered only as
 * "something changed since the last wait", never queued.
 */
export class ChangeSignal {
  private readonly waiters = new Set<() => void>();
  private dirty = false;

  /** Wakes every waiter. */
  notify(): void {
    this.dirty = true;
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves at the next notification (at once if one came since the last wait) or after `timeoutMs`. */
  async wait(timeoutMs: number): Promise<void> {
    if (!this.dirty) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        this.waiters.add(done);
      });
    }
    this.dirty = false;
  }
}
