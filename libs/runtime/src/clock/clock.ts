/**
 * Where the runtime reads the time. Injected everywhere (token {@link CLOCK}),
 * so tests move time forward instead of waiting for real leases to expire.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The Nest injection token of the {@link Clock}. */
export const CLOCK = Symbol('agent-ledger:Clock');

/** The machine's clock. */
export const systemClock: Clock = { now: () => Date.now() };
