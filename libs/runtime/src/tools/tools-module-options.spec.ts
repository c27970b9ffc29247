import { InvalidFieldError } from '@agent-ledger/domain';
import type { JsonValue } from '@agent-ledger/domain';
import { Tool } from './tool.decorator';
import { resolveToolsModuleOptions } from './tools-module-options';

@Tool({ name: 'custom', description: 'A custom tool.', parameters: { type: 'object' } })
class CustomTool {
  async execute(): Promise<JsonValue> {
    return null;
  }
}

function fieldRefused(options: unknown): InvalidFieldError {
  try {
    resolveToolsModuleOptions(options);
  } catch (error) {
    if (error instanceof InvalidFieldError) return error;
    throw error;
  }
  throw new Error('the options were accepted');
}

describe('ToolsModule.forRoot options', () => {
  it('defaults: no extra tools, no file tools (they need a folder), the clock, user.ask', () => {
    expect(resolveToolsModuleOptions(undefined)).toEqual({ tools: [], files: false, clock: true, user: true });
    expect(resolveToolsModuleOptions({ builtins: {} })).toEqual({ tools: [], files: false, clock: true, user: true });
  });

  it('turns user.ask off', () => {
    expect(resolveToolsModuleOptions({ builtins: { user: false } })).toEqual({ tools: [], files: false, clock: true, user: false });
  });

  it('applies the file size default of 1 MiB', () => {
    expect(resolveToolsModuleOptions({ tools: [CustomTool], builtins: { files: { workspaceDir: '/srv/ws' }, clock: false } })).toEqual({
      tools: [CustomTool],
      files: { workspaceDir: '/srv/ws', maxFileBytes: 1048576 },
      clock: false,
      user: true,
    });
  });

  it.each([
    ['options that are not an object', 'tools', 'ToolsModule.forRoot'],
    ['tools that are not an array', { tools: CustomTool }, 'ToolsModule.forRoot.tools'],
    ['a class without @Tool', { tools: [CustomTool, class Plain {}] }, 'ToolsModule.forRoot.tools[1]'],
    ['a tool given as an instance', { tools: [new CustomTool()] }, 'ToolsModule.forRoot.tools[0]'],
    ['a clock flag that is not a boolean', { builtins: { clock: 'yes' } }, 'ToolsModule.forRoot.builtins.clock'],
    ['a user flag that is not a boolean', { builtins: { user: 'no' } }, 'ToolsModule.forRoot.builtins.user'],
    ['files: true', { builtins: { files: true } }, 'ToolsModule.forRoot.builtins.files'],
    ['no workspace folder', { builtins: { files: {} } }, 'ToolsModule.forRoot.builtins.files.workspaceDir'],
    ['an empty workspace folder', { builtins: { files: { workspaceDir: ' ' } } }, 'ToolsModule.forRoot.builtins.files.workspaceDir'],
    ['a zero size limit', { builtins: { files: { workspaceDir: '/w', maxFileBytes: 0 } } }, 'ToolsModule.forRoot.builtins.files.maxFileBytes'],
    ['a fractional size limit', { builtins: { files: { workspaceDir: '/w', maxFileBytes: 1.5 } } }, 'ToolsModule.forRoot.builtins.files.maxFileBytes'],
    ['an unknown option', { tool: [] }, 'ToolsModule.forRoot.tool'],
    ['an unknown built-in', { builtins: { shell: true } }, 'ToolsModule.forRoot.builtins.shell'],
  ])('names the field for %s', (_case, options, field) => {
    expect(fieldRefused(options).field).toBe(field);
  });

  it.each([
    [{ toolEffects: { 'files.append': 'READ_ONLY' } }, 'ToolsModule.forRoot.toolEffects'],
    [{ effectOverrides: {} }, 'ToolsModule.forRoot.effectOverrides'],
    [{ builtins: { effects: { files: 'READ_ONLY' } } }, 'ToolsModule.forRoot.builtins.effects'],
    [{ builtins: { files: { workspaceDir: '/w', effect: 'READ_ONLY' } } }, 'ToolsModule.forRoot.builtins.files.effect'],
  ])('refuses an effect given as an option: %j', (options, field) => {
    const error = fieldRefused(options);
    expect(error.field).toBe(field);
    expect(error.problem).toMatch(/property of its code.*DeclaresToolEffect/);
  });
});
