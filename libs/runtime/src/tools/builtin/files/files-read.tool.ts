import { Inject } from '@nestjs/common';
import type { JsonObject } from '@agent-ledger/domain';
import { open } from 'node:fs/promises';
import { constants } from 'node:fs';
import type { AgentTool, ToolContext } from '../../agent-tool';
import { Tool } from '../../tool.decorator';
import { throwIfToolAborted } from '../../tool-aborted.error';
import { FileTooLargeError } from './file-too-large.error';
import { NO_BLOCK, NO_FOLLOW, Workspace } from './workspace';
import { WorkspaceEntryError } from './workspace-entry.error';

/** The arguments of `files.read`. */
export interface FilesReadArguments extends JsonObject {
  /** Relative to the workspace folder. */
  readonly path: string;
}

/**
 * `files.read`: returns a UTF-8 text file of the workspace. `READ_ONLY` (it
 * declares no effect). Refuses paths outside the workspace, files larger than
 * `maxFileBytes` and files that are not UTF-8 text.
 */
@Tool({
  name: 'files.read',
  description: 'Reads a UTF-8 text file of the workspace and returns its content.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1, maxLength: 4096, description: 'Path relative to the workspace folder' } },
    required: ['path'],
    additionalProperties: false,
  },
})
export class FilesReadTool implements AgentTool<FilesReadArguments> {
  constructor(@Inject(Workspace) private readonly workspace: Workspace) {}

  async execute(args: FilesReadArguments, context: ToolContext): Promise<JsonObject> {
    throwIfToolAborted(context.signal, 'files.read');
    const real = await this.workspace.resolveExisting(args.path);
    const limit = this.workspace.maxFileBytes;
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever (a READ_ONLY tool has no
    // deadline); it opens at once and is refused below as not a file. A regular file reads as without the flag.
    const handle = await this.workspace.io(args.path, 'open', () => open(real, constants.O_RDONLY | NO_FOLLOW | NO_BLOCK));
    try {
      const found = await handle.stat();
      if (!found.isFile()) {
        throw new WorkspaceEntryError(args.path, 'notAFile');
      }
      if (found.size > limit) {
        throw new FileTooLargeError(args.path, found.size, limit);
      }
      // Read one byte more than allowed: the file may have grown since stat.
      const buffer = Buffer.alloc(limit + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0 || length + bytesRead >= buffer.length) {
          length += bytesRead;
          break;
        }
        length += bytesRead;
      }
      if (length > limit) {
        throw new FileTooLargeError(args.path, length, limit);
      }
      let content: string;
      try {
        content = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
      } catch {
        throw new WorkspaceEntryError(args.path, 'notText');
      }
      return { path: this.workspace.display(args.path), content, bytes: length };
    } catch (error) {
      throw this.workspace.translate(error, args.path, 'read');
    } finally {
      await handle.close();
    }
  }
}
