import { isAbsolute } from 'node:path';
import { Injectable } from '@nestjs/common';
import {
  ConfigurationError,
  DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS,
  effectOf,
  InvalidFieldError,
  isWrite,
  ToolEffectResolver,
} from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonObject, ToolEffect } from '@agent-ledger/domain';
import type { ValidateFunction } from 'ajv/dist/2020';
import type { AgentTool } from './agent-tool';
import { createArgumentSchemaAjv, createExternalArgumentSchemaAjv, describeArgumentErrors } from './argument-schema';
import type { ArgumentValidation } from './argument-validation';
import type { RegisteredTool } from './registered-tool';
import { getToolMetadata } from './tool.decorator';
import { DEFAULT_TOOL_DATA_CLASS } from './tool-metadata';
import type { ToolDescription } from './tool-metadata';
import { toolLabel, validateToolMetadata } from './tool-metadata-validation';
import { CODE_TOOL_ORIGIN } from './tool-origin';
import type { McpToolOrigin, ToolOrigin } from './tool-origin';

interface Entry {
  readonly registered: RegisteredTool;
  readonly validate: ValidateFunction;
}

/**
 * Every tool of the process, by name. `ToolsModule` fills it, during its
 * `onModuleInit`, with every provider decorated with `@Tool`.
 *
 * Each tool's effect is read **once**, when it is registered, through the
 * domain's `effectOf(tool)`: from the code's `DeclaresToolEffect.getEffect()`,
 * `READ_ONLY` when the tool declares nothing. There is deliberately no member,
 * option or parameter through which an effect could be given as data.
 */
@Injectable()
export class ToolRegistry {
  private readonly ajv = createArgumentSchemaAjv();
  private externalAjv: ReturnType<typeof createExternalArgumentSchemaAjv> | undefined;
  private readonly entries = new Map<string, Entry>();
  private resolver = new ToolEffectResolver([]);
  private workspace: string | undefined;

  /**
   * The application's workspace folder, which every tool call gets as
   * `ToolContext.workspaceDir`: the built-in file tools' folder, set when it
   * is opened. Undefined until then, and in an application without one.
   */
  get workspaceDir(): string | undefined {
    return this.workspace;
  }

  /**
   * Sets the workspace folder the tool calls get (`ToolsModule` and
   * `AgentLedgerModule` do, when they open the file tools' workspace).
   *
   * @throws {@link InvalidFieldError} (`workspaceDir`) for a path that is not absolute.
   * @throws {@link ConfigurationError} when another folder was set: an application has one workspace.
   */
  useWorkspace(workspaceDir: string): void {
    if (!isAbsolute(workspaceDir)) throw new InvalidFieldError('workspaceDir', `must be an absolute path, not ${JSON.stringify(workspaceDir)}`);
    if (this.workspace !== undefined && this.workspace !== workspaceDir) {
      throw new ConfigurationError(`The tools' workspace is ${JSON.stringify(this.workspace)} already; it cannot also be ${JSON.stringify(workspaceDir)}: an application has one workspace`);
    }
    this.workspace = workspaceDir;
  }

  /**
   * Registers a tool instance whose class is decorated with `@Tool`: checks
   * its metadata, reads its effect and compiles its argument schema (Ajv,
   * strict). Nothing is registered when any of it fails.
   *
   * @throws {@link ConfigurationError} when the class has no `@Tool` metadata,
   *   the schema does not compile, or a tool of that name is registered.
   * @throws {@link InvalidFieldError} when the metadata or the effect
   *   declaration is invalid (the field is named).
   */
  register(tool: AgentTool & object): void {
    this.add(tool, CODE_TOOL_ORIGIN);
  }

  /**
   * Registers a tool of an MCP server, whose class `@agent-ledger/mcp` defined
   * for its binding: as {@link ToolRegistry.register}, except that its
   * argument schema (the server's `inputSchema`) is compiled leniently
   * (unknown formats and keywords ignored: the server validates again), and
   * that the registry keeps where its effect came from (`origin`). The
   * effect is still read from the instance's `getEffect()`, once; it must be
   * the one `origin` names.
   *
   * @throws as {@link ToolRegistry.register}; {@link ConfigurationError} when the instance's effect is not `origin.effect`.
   */
  registerExternal(tool: AgentTool & object, origin: McpToolOrigin): void {
    this.add(tool, Object.freeze({ ...origin }));
  }

  private add(tool: AgentTool & object, origin: ToolOrigin): void {
    const declared = getToolMetadata(tool);
    if (declared === undefined) {
      const className = (tool as { constructor?: { name?: unknown } }).constructor?.name;
      throw new ConfigurationError(
        `Cannot register ${typeof className === 'string' && className.length > 0 ? className : 'this object'} as a tool: its class is not decorated with @Tool({...})`,
      );
    }
    const metadata = validateToolMetadata(declared);
    const label = toolLabel(metadata);
    if (typeof (tool as { execute?: unknown }).execute !== 'function') {
      throw new InvalidFieldError(`${label}.execute`, 'must be a method: a tool implements AgentTool');
    }
    if (this.entries.has(metadata.name)) {
      throw new ConfigurationError(
        `Two tools are named "${metadata.name}": tool names must be unique (one would shadow the other's effect). Is the class provided in two modules?`,
      );
    }
    const effect = readEffect(tool, label);
    if (origin.kind === 'mcp' && origin.effect !== effect) {
      throw new ConfigurationError(`${label} declares ${effect} in code, but its binding resolved ${origin.effect}`);
    }
    let validate: ValidateFunction;
    try {
      validate = origin.kind === 'code' ? this.ajv.compile(metadata.parameters) : this.externalSchemaAjv().compile(metadata.parameters);
    } catch (error) {
      throw new ConfigurationError(
        `${label}.parameters does not compile as a ${origin.kind === 'code' ? 'strict ' : ''}JSON schema: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const registered: RegisteredTool = Object.freeze({
      metadata,
      effect,
      operationDeadlineSeconds: metadata.operationDeadlineSeconds ?? (isWrite(effect) ? DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS : null),
      dataClass: metadata.dataClass ?? DEFAULT_TOOL_DATA_CLASS,
      requiresApproval: metadata.requiresApproval ?? false,
      tool,
      origin,
    });
    this.entries.set(metadata.name, { registered, validate });
    this.resolver = new ToolEffectResolver([...this.entries.values()].map(({ registered: r }) => recordedDeclaration(r)));
  }

  private externalSchemaAjv(): ReturnType<typeof createExternalArgumentSchemaAjv> {
    this.externalAjv ??= createExternalArgumentSchemaAjv();
    return this.externalAjv;
  }

  /** The tool registered under `name`, if any. */
  get(name: string): RegisteredTool | undefined {
    return this.entries.get(name)?.registered;
  }

  /** Whether a tool is registered under `name`. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * The effect of the tool registered under `name`, with the domain's
   * resolution by name: an unknown name (a removed or renamed tool, read back
   * from a stored step) is `NON_IDEMPOTENT_WRITE`.
   */
  effectFor(name: string): ToolEffect {
    return this.resolver.effectFor(name);
  }

  /** The names of every registered tool, sorted. */
  names(): readonly string[] {
    return [...this.entries.keys()].sort();
  }

  /**
   * The descriptions of the named tools, in the order given, as offered to a
   * model.
   *
   * @throws {@link ConfigurationError} naming every unknown tool (an agent
   *   offered a tool that is not registered), or a tool named twice.
   */
  describe(names: readonly string[]): readonly ToolDescription[] {
    const unknown = names.filter((name) => !this.entries.has(name));
    if (unknown.length > 0) {
      throw new ConfigurationError(
        `Unknown tool${unknown.length > 1 ? 's' : ''}: ${unknown.map((name) => JSON.stringify(name)).join(', ')} (registered: ${this.names().join(', ') || 'none'})`,
      );
    }
    const twice = names.filter((name, index) => names.indexOf(name) !== index);
    if (twice.length > 0) {
      throw new ConfigurationError(`Tool${twice.length > 1 ? 's' : ''} named more than once: ${[...new Set(twice)].join(', ')}`);
    }
    return names.map((name) => {
      const { metadata } = (this.entries.get(name) as Entry).registered;
      return { name: metadata.name, description: metadata.description, parameters: metadata.parameters };
    });
  }

  /**
   * Checks a call's arguments against the tool's schema. Never throws: bad
   * arguments, or a tool that is not registered, are an error result for the
   * model. The arguments are not changed (no defaults, no coercion).
   */
  validateArguments(name: string, args: unknown): ArgumentValidation {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      return { ok: false, errors: [`tool ${JSON.stringify(name)} does not exist`] };
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return { ok: false, errors: [`arguments must be an object (got ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args})`] };
    }
    if (entry.validate(args)) {
      return { ok: true, args: args as JsonObject };
    }
    return { ok: false, errors: describeArgumentErrors(entry.validate.errors) };
  }
}

/** The tool's effect, through the domain's `effectOf`, with the tool named in the error. */
function readEffect(tool: object, label: string): ToolEffect {
  try {
    return effectOf(tool);
  } catch (error) {
    if (error instanceof InvalidFieldError) {
      throw new InvalidFieldError(`${label}.${error.field}`, error.problem);
    }
    throw error;
  }
}

/** The effect recorded at registration, as a declaration the domain's resolver can read (again, without asking the tool). */
function recordedDeclaration(registered: RegisteredTool): DeclaresToolEffect & { readonly name: string } {
  const { effect } = registered;
  return { name: registered.metadata.name, getEffect: () => effect };
}
