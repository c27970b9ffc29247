import { Command } from '@nestjs/cqrs';
import type { DecisionStatement, RunCommand } from '@agent-ledger/domain';
import type { AuditEntry, StatementRecording } from './audit-recorder';
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

/**
 * Records in the run's audit chain the statement of a decision that took
 * effect on the run (derived from its run event), exactly once; resolves to
 * what became of it and never throws.
 */
export class RecordDecisionStatementCommand extends Command<StatementRecording> {
  constructor(
    readonly statement: DecisionStatement,
    readonly now: number,
  ) {
    super();
  }
}
