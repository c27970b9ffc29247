/** A process that ran at least this long before exiting is started again after the first delay, not a longer one. */
export const RESTART_STABLE_AFTER_MS = 60_000;

/** The delays of {@link RestartBackoff}. */
export interface RestartBackoffPolicy {
  /** The delay after the first exit, and after an exit that came {@link RESTART_STABLE_AFTER_MS} or more after its start. */
  readonly initialDelayMs: number;
  /** The longest delay. */
  readonly maxDelayMs: number;
}

/**
 * When to start again a supervised process that keeps exiting (a worker
 * process, an MCP server): after the initial delay, doubling for each exit in
 * a row that came within a minute of its start, up to the maximum. One per
 * supervised process: it counts that process's quick exits.
 */
export class RestartBackoff {
  private quickExits = 0;

  constructor(private readonly policy: RestartBackoffPolicy) {}

  /** The delay before the next start, counting this exit, which came `ranForMs` after the process started. */
  delayAfterExit(ranForMs: number): number {
    this.quickExits = ranForMs < RESTART_STABLE_AFTER_MS ? this.quickExits + 1 : 1;
    return Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * 2 ** (this.quickExits - 1));
  }
}
