import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A tool stopped because its call's signal fired (the run was cancelled, the
 * segment lost its lease, or the operation deadline passed). A write tool
 * throws it only before it changed anything; the runtime, which fired the
 * signal, knows why and decides what follows, so it is `unknown` here: never
 * retried on its own account.
 */
export class ToolAbortedError extends AgentLedgerError {
  readonly code = 'TOOL_ABORTED' as const;
  readonly failureClass = 'unknown' as const;

  constructor(
    readonly toolName: string,
    options?: { cause?: unknown },
  ) {
    super(`Tool ${toolName} was aborted${describeReason(options?.cause)}`, options);
  }
}

/**
 * Throws a {@link ToolAbortedError} (with the signal's reason as its cause)
 * when `signal` has fired. Call it before each step that changes the world.
 */
export function throwIfToolAborted(signal: AbortSignal, toolName: string): void {
  if (signal.aborted) {
    throw new ToolAbortedError(toolName, { cause: signal.reason });
  }
}

function describeReason(reason: unknown): string {
  if (reason instanceof Error && reason.message.length > 0) {
    return `: ${reason.message}`;
  }
  return typeof reason === 'string' && reason.length > 0 ? `: ${reason}` : '';
}
