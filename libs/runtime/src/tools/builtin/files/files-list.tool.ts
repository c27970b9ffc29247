import { lstat, readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject } from '@nestjs/common';
import type { JsonObject } from '@agent-ledger/domain';
import type { AgentTool, ToolContext } from '../../agent-tool';
import { Tool } from '../../tool.decorator';
import { throwIfToolAborted } from '../../tool-aborted.error';
import { Workspace, WORKSPACE_TEMP_PREFIX } from './workspace';
import { WorkspaceEntryError } from './workspace-entry.error';

/** The most entries `files.list` returns; beyond it the result says `truncated: true`. @default 1000 */
export const FILES_LIST_MAX_ENTRIES = 1000;

/**
 * The arguments of `files.list`: `path`, a folder relative to the workspace
 * folder (optional, hence no stricter type: `JsonObject` has no optional keys).
 * @default { path: '.' }
 */
export type FilesListArguments = JsonObject;

/**
 * `files.list`: the entries of one folder of the workspace (not recursive),
 * sorted by name, with the size of each file. `READ_ONLY`.
 */
@Tool({
  name: 'files.list',
  description: 'Lists the files and folders in a folder of the workspace (not recursive).',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1, maxLength: 4096, description: "Folder relative to the workspace folder; '.' (the default) is the workspace itself" } },
    additionalProperties: false,
  },
})
export class FilesListTool implements AgentTool<FilesListArguments> {
  constructor(@Inject(Workspace) private readonly workspace: Workspace) {}

  async execute(args: FilesListArguments, context: ToolContext): Promise<JsonObject> {
    throwIfToolAborted(context.signal, 'files.list');
    const relative = typeof args['path'] === 'string' ? args['path'] : '.';
    const real = await this.workspace.resolveExisting(relative);
    if (!(await this.workspace.io(relative, 'inspect', () => stat(real))).isDirectory()) {
      throw new WorkspaceEntryError(relative, 'notADirectory');
    }
    const names = (await this.workspace.io(relative, 'list', () => readdir(real)))
      .filter((name) => !name.startsWith(WORKSPACE_TEMP_PREFIX))
      .sort();
    const entries: JsonObject[] = [];
    for (const name of names.slice(0, FILES_LIST_MAX_ENTRIES)) {
      const found = await lstat(path.join(real, name)).catch(() => undefined);
      if (found === undefined) continue; // removed meanwhile
      if (found.isFile()) entries.push({ name, type: 'file', bytes: found.size });
      else if (found.isDirectory()) entries.push({ name, type: 'folder' });
      else if (found.isSymbolicLink()) entries.push({ name, type: 'link' });
      else entries.push({ name, type: 'other' });
    }
    return { path: this.workspace.display(relative), entries, truncated: names.length > FILES_LIST_MAX_ENTRIES };
  }
}
