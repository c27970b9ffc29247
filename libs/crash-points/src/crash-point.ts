/**
 * The named moments where a test may stop a process (or, in the
 * deterministic simulation, pause it) to prove what the runtime promises
 * under failure. Production code marks them with {@link crashPoint}; nothing
 * happens unless a test installs a handler ({@link installCrashPointHandler}).
 */
export const CrashPoint = {
  /** A write's `StartStep` (its in-flight record) is about to be appended. */
  BEFORE_WRITE_FENCE: 'beforeWriteFence',
  /** A write's in-flight record is stored; its tool is not called yet. */
  AFTER_WRITE_FENCE: 'afterWriteFence',
  /** A tool call is in progress (marked by the tools of the crash tests, inside `execute`). */
  DURING_TOOL_CALL: 'duringToolCall',
  /** A tool returned (or threw); its `ToolExecuted` is not appended yet. */
  AFTER_TOOL_RETURNED: 'afterToolReturned',
  /**
   * A step's `ToolExecuted` is stored; its `AuditRecorded` is not. Reached
   * only where a step's records are appended one after the other (the audit
   * streams in a store of their own, EventStoreDB, or a one-commit append
   * that was refused): elsewhere they are stored together.
   */
  BEFORE_AUDIT: 'beforeAudit',
  /** A tool step's records are stored, its audit included (together or one after the other); the next step is not started. */
  AFTER_STEP_RECORDED: 'afterStepRecorded',
  /** A segment is about to append the event that settles its run. */
  BEFORE_SETTLE: 'beforeSettle',
  /** A projection batch is applied inside its transaction, not committed yet. */
  DURING_PROJECTION_UPDATE: 'duringProjectionUpdate',
} as const;

/** One of the {@link CrashPoint} names. */
export type CrashPoint = (typeof CrashPoint)[keyof typeof CrashPoint];

/** Every crash point name. */
export const CRASH_POINTS: readonly CrashPoint[] = Object.freeze(Object.values(CrashPoint));

/** Where a crash point was reached. */
export interface CrashPointContext {
  readonly runId?: string;
  readonly stepId?: string;
  /** The tool's declared effect, at a tool's points. */
  readonly effect?: string;
}

/**
 * What happens at a crash point: nothing, a `SIGKILL` of the process, or
 * (in the simulation) a pause until the scheduler resumes the caller.
 */
export type CrashPointHandler = (point: CrashPoint, context: CrashPointContext) => void | Promise<void>;

let installed: CrashPointHandler | null = null;

/**
 * Installs the process's crash point handler (one at a time).
 *
 * @returns the function that removes it.
 * @throws Error when another handler is installed: two tests may not share the hook.
 */
export function installCrashPointHandler(handler: CrashPointHandler): () => void {
  if (installed !== null) throw new Error('A crash point handler is installed already');
  installed = handler;
  return () => {
    if (installed === handler) installed = null;
  };
}

/**
 * Marks a crash point in asynchronous code: `await crashPoint(...)`. Without
 * a handler it returns undefined at once (the default, and always in
 * production).
 */
export function crashPoint(point: CrashPoint, context: CrashPointContext = {}): void | Promise<void> {
  return installed === null ? undefined : installed(point, context);
}

/**
 * Marks a crash point in synchronous code (inside a SQLite transaction): a
 * handler may kill the process there, not pause it.
 */
export function crashPointSync(point: CrashPoint, context: CrashPointContext = {}): void {
  if (installed === null) return;
  const result = installed(point, context);
  if (result instanceof Promise) throw new Error(`Crash point ${point} is synchronous: its handler must not return a promise`);
}
