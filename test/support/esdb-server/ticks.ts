/** 100-nanosecond ticks in one millisecond. */
export const TICKS_PER_MILLISECOND = 10_000n;

/**
 * Converts a JavaScript time (ms since the Unix epoch) to the value EventStoreDB puts in the
 * `created` metadata entry of a recorded event.
 *
 * Warning: despite being called ".NET ticks", the gRPC `created` value counts 100 ns ticks
 * since the **Unix epoch** (`DateTime.ToTicksSinceEpoch()` on the server), not since
 * 0001-01-01. The Node client divides it by 10 000 and passes it to `new Date(ms)`.
 */
export function unixMillisToTicks(millis: number): bigint {
  return BigInt(Math.trunc(millis)) * TICKS_PER_MILLISECOND;
}

/** Inverse of {@link unixMillisToTicks}, truncating sub-millisecond precision. */
export function ticksToUnixMillis(ticks: bigint): number {
  return Number(ticks / TICKS_PER_MILLISECOND);
}
