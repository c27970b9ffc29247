import type { ModuleRef } from '@nestjs/core';
import { systemClock } from '../clock/clock';
import type { Clock } from '../clock/clock';
import type { AgentTool } from '../tools/agent-tool';
import { ClockNowTool } from '../tools/builtin/clock-now.tool';
import { UserAskTool } from '../tools/builtin/user-ask.tool';
import { FilesAppendTool } from '../tools/builtin/files/files-append.tool';
import { FilesListTool } from '../tools/builtin/files/files-list.tool';
import { FilesReadTool } from '../tools/builtin/files/files-read.tool';
import { FilesWriteTool } from '../tools/builtin/files/files-write.tool';
import { Workspace } from '../tools/builtin/files/workspace';
import type { ToolRegistry } from '../tools/tool-registry';
import type { ToolsModuleOptions } from '../tools/tools-module-options';
import { resolveToolsModuleOptions } from '../tools/tools-module-options';

/**
 * The tools that `ToolsModule.forRoot(options)` would provide (the built-ins
 * chosen and the listed classes), built once the options are resolved and
 * registered in the registry. `@Tool` providers of the application's modules
 * are found by `ToolsModule`'s discovery, as with `forRoot`.
 *
 * The listed classes are created with `moduleRef.create`: as with `forRoot`,
 * their dependencies must be global providers.
 *
 * @throws InvalidFieldError for a bad option; ConfigurationError for a workspace folder that does not exist
 */
export async function registerConfiguredTools(
  options: ToolsModuleOptions | undefined,
  clock: Clock | undefined,
  registry: ToolRegistry,
  moduleRef: ModuleRef,
): Promise<readonly AgentTool[]> {
  const resolved = resolveToolsModuleOptions(options ?? {});
  const tools: (AgentTool & object)[] = [];
  if (resolved.clock) tools.push(new ClockNowTool(clock ?? systemClock));
  if (resolved.user) tools.push(new UserAskTool());
  if (resolved.files !== false) {
    const workspace = await Workspace.open(resolved.files, 'AgentLedgerModule.forRootAsync.tools.builtins.files.workspaceDir');
    registry.useWorkspace(workspace.root);
    tools.push(new FilesReadTool(workspace), new FilesListTool(workspace), new FilesWriteTool(workspace), new FilesAppendTool(workspace));
  }
  for (const type of resolved.tools) tools.push(await moduleRef.create(type));
  for (const tool of tools) registry.register(tool);
  return Object.freeze(tools);
}
