import type { ProcessorRunner } from '@agent-ledger/event-store';

/**
 * Processor runners a process already has on the read models' stores (the
 * runtime's `EventProcessors` when the runtime and the read models run in
 * one process): the projections join them ({@link ProjectionRunnerOptions.host})
 * instead of reading each store a second time.
 */
export interface ProcessorRunnerHost {
  /** The runner that reads the store of the source named (not opened yet: the projections are added to it). */
  runnerOf(source: string): ProcessorRunner;
  /** Starts the host's runners (idempotent). */
  start(): Promise<void>;
}
