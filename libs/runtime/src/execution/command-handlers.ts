import type { ICommandHandler } from '@nestjs/cqrs';
import { CommandHandler } from '@nestjs/cqrs';
import { AuditRecorder } from './audit-recorder';
import { DispatchRunCommand, RecordApprovalDecisionCommand, RecordAuditCommand, RecordWriteResolutionCommand } from './commands';
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

/** Records an operator's statement about an in-flight write; resolves to whether it persisted. */
@CommandHandler(RecordWriteResolutionCommand)
export class RecordWriteResolutionCommandHandler implements ICommandHandler<RecordWriteResolutionCommand, boolean> {
  constructor(private readonly recorder: AuditRecorder) {}

  execute({ resolution, now }: RecordWriteResolutionCommand): Promise<boolean> {
    return this.recorder.recordWriteResolution(resolution, now);
  }
}

/** Records a person's approval decision in the audit trail; resolves to whether it persisted. */
@CommandHandler(RecordApprovalDecisionCommand)
export class RecordApprovalDecisionCommandHandler implements ICommandHandler<RecordApprovalDecisionCommand, boolean> {
  constructor(private readonly recorder: AuditRecorder) {}

  execute({ decision, now }: RecordApprovalDecisionCommand): Promise<boolean> {
    return this.recorder.recordApprovalDecision(decision, now);
  }
}
