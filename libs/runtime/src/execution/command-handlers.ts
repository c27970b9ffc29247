import type { ICommandHandler } from '@nestjs/cqrs';
import { CommandHandler } from '@nestjs/cqrs';
import { AuditRecorder } from './audit-recorder';
import { DispatchRunCommand, RecordAuditCommand, RecordWriteResolutionCommand } from './commands';
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
