import { randomUUID } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject } from '@nestjs/common';
import { ToolEffect } from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonObject } from '@agent-ledger/domain';
import type { AgentTool, ToolContext } from '../../agent-tool';
import { Tool } from '../../tool.decorator';
import { throwIfToolAborted } from '../../tool-aborted.error';
import { Workspace, WORKSPACE_TEMP_PREFIX } from './workspace';

/** The arguments of `files.write`. */
export interface FilesWriteArguments extends JsonObject {
  /** Relative to the workspace folder; missing folders are created. */
  readonly path: string;
  /** The whole new content, UTF-8. */
  readonly content: string;
}

/**
 * `files.write`: replaces a file's whole content (creating the file and its
 * folders when missing). `IDEMPOTENT_WRITE`: a retried call with the same
 * content leaves the same file; when the file already holds exactly that
 * content it is not touched at all (`changed: false`).
 *
 * The content goes to a temporary file in the same folder, is flushed to disk,
 * then renamed over the target: a crash leaves either the old or the new file,
 * never a torn one (at worst a stray `.agent-ledger-tmp-*` file, which
 * `files.list` hides). The signal is checked before anything is written and
 * again before the rename.
 */
@Tool({
  name: 'files.write',
  description: 'Writes the whole content of a UTF-8 text file of the workspace, creating or replacing it.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 4096, description: 'Path relative to the workspace folder' },
      content: { type: 'string', description: 'The whole new content of the file' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  operationDeadlineSeconds: 60,
})
export class FilesWriteTool implements AgentTool<FilesWriteArguments>, DeclaresToolEffect {
  constructor(@Inject(Workspace) private readonly workspace: Workspace) {}

  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }

  async execute(args: FilesWriteArguments, context: ToolContext): Promise<JsonObject> {
    const checkSignal = (): void => throwIfToolAborted(context.signal, 'files.write');
    const { data, target } = await this.workspace.prepareWrite(args.path, args.content, checkSignal);
    const shown = this.workspace.display(args.path);
    const previous = await stat(target).catch(() => undefined);
    if (previous !== undefined && previous.size === data.length) {
      const current = await this.workspace.io(args.path, 'read', () => readFile(target));
      if (current.equals(data)) {
        return { path: shown, bytes: data.length, changed: false };
      }
    }

    checkSignal();
    const temporary = path.join(path.dirname(target), `${WORKSPACE_TEMP_PREFIX}${randomUUID()}`);
    try {
      const handle = await open(temporary, 'wx', 0o666);
      try {
        if (previous !== undefined) {
          await handle.chmod(previous.mode & 0o7777);
        }
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      checkSignal();
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw this.workspace.translate(error, args.path, 'write');
    }
    await syncFolder(path.dirname(target));
    return { path: shown, bytes: data.length, changed: true };
  }
}

/** Flushes a folder's entries (the rename) to disk; best effort, as not every platform allows it. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported here (e.g. Windows); the rename itself is still atomic.
  }
}
