/**
 * Notices commits made by other connections (other processes) to the same
 * SQLite file by polling `PRAGMA data_version`, which changes when another
 * connection commits. Polls only while `start()`ed (while a subscription
 * waits), at `min` ms after a change, doubling up to `max` ms while idle.
 *
 * The last seen version persists across stop/start, so a commit that lands
 * while nobody waits is still reported on the next start (a spurious wake at
 * worst, never a missed one).
 */
export class DataVersionPoller {
  private timer: NodeJS.Timeout | undefined;
  private interval: number;
  private lastVersion: number;

  constructor(
    private readonly readVersion: () => number,
    private readonly onChange: () => void,
    private readonly onError: (error: unknown) => void,
    private readonly min: number,
    private readonly max: number,
  ) {
    this.interval = min;
    this.lastVersion = readVersion();
  }

  /** Starts polling (no-op if running). */
  start(): void {
    if (this.timer !== undefined) return;
    this.interval = this.min;
    this.schedule();
  }

  /** Stops polling (no-op if stopped). */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.tick(), this.interval);
  }

  private tick(): void {
    let version: number;
    try {
      version = this.readVersion();
    } catch (error) {
      this.timer = undefined;
      this.onError(error);
      return;
    }
    if (version !== this.lastVersion) {
      this.lastVersion = version;
      this.interval = this.min;
      this.schedule();
      this.onChange();
      return;
    }
    this.interval = Math.min(this.interval * 2, this.max);
    this.schedule();
  }
}
