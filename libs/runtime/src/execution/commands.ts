import { Command } from '@nestjs/cqrs';
import type { RecordApprovalDecision, RecordWriteResolution, RunCommand } from '@agent-ledger/domain';
import type { AuditEntry } from './audit-recorder';
import type { CausationContext } from './domain-event-codec';
import type { RunCommandOutcome, RunSnapshot } from './run-command-processor';

/**
 * Sends a run command of the domain through the CommandBus to its one
 * handler, which decides it and appends the result. The runtime's segments,
 * the reaper and the service's API all write runs this way.
 */
export class DispatchRunCommand extends Command<RunCommandOutcome> {
  constructor(
    readonly command: RunCommand,
    /** A snapshot the sender holds (a segment's own last write), to skip a read. */
    readonly known?: RunSnapshot,
    readonly causation: CausationContext = {},
  ) {
    super();
  }
}

/** Records a step's audit event; its handler answers whether it persisted and never throws. */
export class RecordAuditCommand extends Command<boolean> {
  constructor(
    readonly entry: AuditEntry,
    readonly now: number,
  ) {
    super();
  }
}

/** Records an operator's statement about a write that was in flight; resolves to whether it persisted. */
export class RecordWriteResolutionCommand extends Command<boolean> {
  constructor(
    readonly resolution: RecordWriteResolution['data'],
    readonly now: number,
  ) {
    super();
  }
}

/** Records a person's decision on calls waiting for approval in the run's audit trail; resolves to whether it persisted. */
export class RecordApprovalDecisionCommand extends Command<boolean> {
  constructor(
    readonly decision: RecordApprovalDecision['data'],
    readonly now: number,
  ) {
    super();
  }
}
