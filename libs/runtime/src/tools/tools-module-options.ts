import type { Type } from '@nestjs/common';
import { InvalidFieldError } from '@agent-ledger/domain';
import type { AgentTool } from './agent-tool';
import { DEFAULT_MAX_FILE_BYTES } from './builtin/files/files-tool-options';
import type { FilesToolOptions } from './builtin/files/files-tool-options';
import { getToolMetadata } from './tool.decorator';
import { EFFECT_IS_CODE, isEffectLikeKey } from './tool-metadata-validation';

/** The options of `ToolsModule.forRoot(...)`. None of them can give or change a tool's effect. */
export interface ToolsModuleOptions {
  /**
   * Tool classes (decorated with `@Tool`) to provide in the tools module, in
   * addition to the `@Tool` providers of any other module, which are found
   * without being listed. Do not list a class that another module provides
   * too: that makes two tools of one name, which is refused.
   * @default []
   */
  readonly tools?: readonly Type<AgentTool>[];
  /** The built-in tools to provide. */
  readonly builtins?: BuiltinToolsOptions;
}

/** Which built-in tools `ToolsModule` provides. */
export interface BuiltinToolsOptions {
  /**
   * `files.read`, `files.list` (READ_ONLY), `files.write` (IDEMPOTENT_WRITE)
   * and `files.append` (NON_IDEMPOTENT_WRITE), confined to a workspace folder;
   * `false` for none.
   * @default false (they need a workspace folder)
   */
  readonly files?: FilesToolOptions | false;
  /**
   * `clock.now` (READ_ONLY), reading the runtime's `CLOCK`.
   * @default true
   */
  readonly clock?: boolean;
  /**
   * `user.ask` (READ_ONLY): asks the user a question; the run waits
   * (`WAITING_FOR_INPUT`) until a person submits the answer.
   * @default true
   */
  readonly user?: boolean;
}

/** {@link ToolsModuleOptions} checked, with every default applied. */
export interface ResolvedToolsModuleOptions {
  readonly tools: readonly Type<AgentTool>[];
  readonly files: Required<FilesToolOptions> | false;
  readonly clock: boolean;
  readonly user: boolean;
}

const PREFIX = 'ToolsModule.forRoot';

/**
 * Checks the module's options at the boundary and applies their defaults.
 *
 * @throws {@link InvalidFieldError} naming the field (`ToolsModule.forRoot.builtins.files.maxFileBytes`);
 *   any key that looks like an effect (`effect`, `toolEffects`, ...) is refused
 *   with an explanation that effects are declared in code.
 */
export function resolveToolsModuleOptions(options: unknown): ResolvedToolsModuleOptions {
  const root = record(options ?? {}, PREFIX);
  onlyKeys(root, PREFIX, ['tools', 'builtins']);

  const tools = root['tools'] ?? [];
  if (!Array.isArray(tools)) {
    throw new InvalidFieldError(`${PREFIX}.tools`, 'must be an array of tool classes');
  }
  tools.forEach((tool: unknown, index) => {
    if (typeof tool !== 'function' || getToolMetadata(tool) === undefined) {
      throw new InvalidFieldError(`${PREFIX}.tools[${index}]`, 'must be a class decorated with @Tool({...})');
    }
  });

  const builtins = record(root['builtins'] ?? {}, `${PREFIX}.builtins`);
  onlyKeys(builtins, `${PREFIX}.builtins`, ['files', 'clock', 'user']);

  const clock = builtins['clock'] ?? true;
  if (typeof clock !== 'boolean') {
    throw new InvalidFieldError(`${PREFIX}.builtins.clock`, 'must be a boolean');
  }
  const user = builtins['user'] ?? true;
  if (typeof user !== 'boolean') {
    throw new InvalidFieldError(`${PREFIX}.builtins.user`, 'must be a boolean');
  }

  return Object.freeze({
    tools: Object.freeze([...(tools as Type<AgentTool>[])]),
    files: resolveFiles(builtins['files'] ?? false),
    clock,
    user,
  });
}

function resolveFiles(value: unknown): Required<FilesToolOptions> | false {
  if (value === false) {
    return false;
  }
  const field = `${PREFIX}.builtins.files`;
  const files = record(value, field, 'must be false or { workspaceDir, maxFileBytes? }');
  onlyKeys(files, field, ['workspaceDir', 'maxFileBytes']);
  const { workspaceDir, maxFileBytes = DEFAULT_MAX_FILE_BYTES } = files;
  if (typeof workspaceDir !== 'string' || workspaceDir.trim().length === 0) {
    throw new InvalidFieldError(`${field}.workspaceDir`, 'must be a non-empty path of an existing folder');
  }
  if (typeof maxFileBytes !== 'number' || !Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1) {
    throw new InvalidFieldError(`${field}.maxFileBytes`, `must be a positive integer number of bytes (got ${String(maxFileBytes)})`);
  }
  return Object.freeze({ workspaceDir, maxFileBytes });
}

function record(value: unknown, field: string, problem = 'must be an object'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidFieldError(field, problem);
  }
  return value as Record<string, unknown>;
}

function onlyKeys(value: Record<string, unknown>, field: string, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (isEffectLikeKey(key)) {
      throw new InvalidFieldError(`${field}.${key}`, EFFECT_IS_CODE);
    }
    if (!known.includes(key)) {
      throw new InvalidFieldError(`${field}.${key}`, `is not an option (known: ${known.join(', ')})`);
    }
  }
}
