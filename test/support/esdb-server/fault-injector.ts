import { status } from '@grpc/grpc-js';

/**
 * Fault hooks for outage and retry tests: the next `count` appends (`Append` or `BatchAppend`
 * requests) fail with a gRPC status instead of being written.
 */
export class FaultInjector {
  private appendFaults: status[] = [];
  private appendDelays: number[] = [];

  /**
   * Makes the next `count` appends wait `delayMs` before being written (a slow or stalled
   * node). An append whose deadline passes meanwhile is not written and ends with the
   * deadline error the client expects.
   */
  delayNextAppends(count: number, delayMs: number): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`delayNextAppends: count must be a non-negative integer, got ${count}`);
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`delayNextAppends: delayMs must be a non-negative number, got ${delayMs}`);
    this.appendDelays.push(...Array.from({ length: count }, () => delayMs));
  }

  /** Consumes the next pending append delay, 0 when none. */
  takeAppendDelay(): number {
    return this.appendDelays.shift() ?? 0;
  }

  /**
   * Makes the next `count` appends fail with `code`, without writing anything.
   * @default code `status.UNAVAILABLE`
   */
  failNextAppends(count: number, code: status = status.UNAVAILABLE): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`failNextAppends: count must be a non-negative integer, got ${count}`);
    this.appendFaults.push(...Array.from({ length: count }, () => code));
  }

  /** Consumes the next pending append fault, if any. */
  takeAppendFault(): status | undefined {
    return this.appendFaults.shift();
  }

  /** Drops every pending fault. */
  clear(): void {
    this.appendFaults = [];
    this.appendDelays = [];
  }
}
