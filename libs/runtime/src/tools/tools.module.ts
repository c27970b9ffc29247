import { Module } from '@nestjs/common';
import type { DynamicModule, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ClockNowTool } from './builtin/clock-now.tool';
import { FilesAppendTool } from './builtin/files/files-append.tool';
import { FilesListTool } from './builtin/files/files-list.tool';
import { FilesReadTool } from './builtin/files/files-read.tool';
import { FilesWriteTool } from './builtin/files/files-write.tool';
import { Workspace } from './builtin/files/workspace';
import { UserAskTool } from './builtin/user-ask.tool';
import { ToolDiscovery } from './tool-discovery';
import { ToolRegistry } from './tool-registry';
import { resolveToolsModuleOptions } from './tools-module-options';
import type { ToolsModuleOptions } from './tools-module-options';

/**
 * The tools of the application. Import `ToolsModule.forRoot(...)` once, in
 * the root module: it is global and exports the {@link ToolRegistry}.
 *
 * When the module starts (`onModuleInit`), every provider decorated with
 * `@Tool`, in any module, is registered, with the effect its code declares.
 * The options choose the built-in tools and extra tool classes; none of them
 * can give or change an effect.
 */
@Module({})
export class ToolsModule {
  /**
   * @throws {@link InvalidFieldError} naming a bad option (see {@link resolveToolsModuleOptions}).
   */
  static forRoot(options: ToolsModuleOptions = {}): DynamicModule {
    const resolved = resolveToolsModuleOptions(options);
    const providers: Provider[] = [ToolRegistry, ToolDiscovery, ...resolved.tools];
    if (resolved.clock) {
      providers.push(ClockNowTool);
    }
    if (resolved.user) {
      providers.push(UserAskTool);
    }
    const files = resolved.files;
    if (files !== false) {
      providers.push(
        {
          provide: Workspace,
          inject: [ToolRegistry],
          useFactory: async (registry: ToolRegistry) => {
            const workspace = await Workspace.open(files, 'ToolsModule.forRoot.builtins.files.workspaceDir');
            // Every tool call gets it as ToolContext.workspaceDir.
            registry.useWorkspace(workspace.root);
            return workspace;
          },
        },
        FilesReadTool,
        FilesListTool,
        FilesWriteTool,
        FilesAppendTool,
      );
    }
    return {
      module: ToolsModule,
      global: true,
      imports: [DiscoveryModule],
      providers,
      exports: [ToolRegistry],
    };
  }
}
