import { getToolMetadata } from '../tool.decorator';
import { ClockNowTool } from './clock-now.tool';
import { FilesAppendTool } from './files/files-append.tool';
import { FilesListTool } from './files/files-list.tool';
import { FilesReadTool } from './files/files-read.tool';
import { FilesWriteTool } from './files/files-write.tool';
import { UserAskTool } from './user-ask.tool';

/**
 * The names of the runtime's built-in tools (`files.*`, `clock.now`,
 * `user.ask`), whether or not a module provides them: a plugin may not
 * register a tool under one of them.
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = Object.freeze(
  [ClockNowTool, UserAskTool, FilesReadTool, FilesListTool, FilesWriteTool, FilesAppendTool].map((tool) => getToolMetadata(tool)?.name as string).sort(),
);
