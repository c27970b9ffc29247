import type { ICommandHandler } from '@nestjs/cqrs';
import { CommandHandler } from '@nestjs/cqrs';
import type { StatementRecording } from './audit-recorder';
import { AuditRecorder } from './audit-recorder';
import { DispatchRunCommand, RecordAuditCommand, RecordDecisionStatementCommand } from './commands';
import type { RunCommandOutcome } from './run-command-processor';
import { RunCommandProcessor } from './run-command-processor';

/** Decides a run command and appends its events with the expected revision. */
@CommandHandler(DispatchRunCommand)
export class DispatchRunCommandHandler implements ICommandHandler<DispatchRunCommand, RunCommandOutcome> {
  constructor(private readonly processor: RunCommandProcessor) {}

  execute({ command, known, causation }: DispatchRunCommand): Promise<RunCommandOutcome> {
    return this.processor.process(command, known, causation);
  }
}

/** Records an audit event; resolves to whether it persisted. */
@CommandHandler(RecordAuditCommand)
export class RecordAuditCommandHandler implements ICommandHandler<RecordAuditCommand, boolean> {
  constructor(private readonly recorder: AuditRecorder) {}

  execute({ entry, now }: RecordAuditCommand): Promise<boolean> {
    return this.recorder.record(entry, now);
  }
}

/** Records a decision's statement in the audit chain, once; resolves to what became of it. */
@CommandHandler(RecordDecisionStatementCommand)
export class RecordDecisionStatementCommandHandler implements ICommandHandler<RecordDecisionStatementCommand, StatementRecording> {
  constructor(private readonly recorder: AuditRecorder) {}

  execute({ statement, now }: RecordDecisionStatementCommand): Promise<StatementRecording> {
    return this.recorder.recordStatement(statement, now);
  }
}
