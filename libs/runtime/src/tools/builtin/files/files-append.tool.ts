import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { Inject } from '@nestjs/common';
import { ToolEffect } from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonObject } from '@agent-ledger/domain';
import type { AgentTool, ToolContext } from '../../agent-tool';
import { Tool } from '../../tool.decorator';
import { throwIfToolAborted } from '../../tool-aborted.error';
import { FileTooLargeError } from './file-too-large.error';
import { NO_FOLLOW, Workspace } from './workspace';
import { WorkspaceEntryError } from './workspace-entry.error';

/** The arguments of `files.append`. */
export interface FilesAppendArguments extends JsonObject {
  /** Relative to the workspace folder; the file and missing folders are created. */
  readonly path: string;
  /** Added at the end of the file, UTF-8. */
  readonly content: string;
}

/**
 * `files.append`: adds text at the end of a file (creating it when missing).
 * `NON_IDEMPOTENT_WRITE`: each call adds the text again, so the runtime runs
 * it at most once per step. Refused, before anything is written, when the file
 * would grow beyond `maxFileBytes` or the signal has fired.
 */
@Tool({
  name: 'files.append',
  description: 'Appends UTF-8 text at the end of a file of the workspace, creating the file when missing.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 4096, description: 'Path relative to the workspace folder' },
      content: { type: 'string', description: 'The text to add at the end of the file' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  operationDeadlineSeconds: 60,
})
export class FilesAppendTool implements AgentTool<FilesAppendArguments>, DeclaresToolEffect {
  constructor(@Inject(Workspace) private readonly workspace: Workspace) {}

  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }

  async execute(args: FilesAppendArguments, context: ToolContext): Promise<JsonObject> {
    const checkSignal = (): void => throwIfToolAborted(context.signal, 'files.append');
    const { data, target } = await this.workspace.prepareWrite(args.path, args.content, checkSignal);
    checkSignal();
    const handle = await this.workspace.io(args.path, 'open', () =>
      open(target, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW, 0o666),
    );
    try {
      const found = await handle.stat();
      if (!found.isFile()) {
        throw new WorkspaceEntryError(args.path, 'notAFile');
      }
      if (found.size + data.length > this.workspace.maxFileBytes) {
        throw new FileTooLargeError(args.path, found.size + data.length, this.workspace.maxFileBytes);
      }
      checkSignal();
      await handle.appendFile(data);
      await handle.sync();
      return { path: this.workspace.display(args.path), appendedBytes: data.length, bytes: found.size + data.length };
    } catch (error) {
      throw this.workspace.translate(error, args.path, 'append to');
    } finally {
      await handle.close();
    }
  }
}
