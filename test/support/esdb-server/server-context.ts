import type { AppendConflicts } from './append-conflicts';
import type { EventLog } from './event-log';
import type { FaultInjector } from './fault-injector';
import type { OpenCalls } from './open-calls';

/** What every service implementation of one server incarnation shares. */
export interface ServerContext {
  /** The data, shared across restarts. */
  readonly log: EventLog;
  /** Long-lived calls of the current incarnation, ended on stop. */
  readonly openCalls: OpenCalls;
  readonly faults: FaultInjector;
  /** Appends refused with a wrong expected revision, counted for the tests (shared across restarts). */
  readonly conflicts: AppendConflicts;
  /** Largest append accepted, in `Event.SizeOnDisk` bytes (see `append-size.ts`). */
  readonly maxAppendSize: number;
}
