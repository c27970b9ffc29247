import { status } from '@grpc/grpc-js';

/**
 * Fault hooks for outage and retry tests: the next `count` appends (`Append` or `BatchAppend`
 * requests) fail with a gRPC status instead of being written.
 */
export class FaultInjector {
  private appendFaults: status[] = [];

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
  }
}
