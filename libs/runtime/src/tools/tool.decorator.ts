import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { InvalidFieldError } from '@agent-ledger/domain';
import type { AgentTool } from './agent-tool';
import type { ToolMetadata } from './tool-metadata';
import { toolLabel, validateToolMetadata } from './tool-metadata-validation';

/** The reflect-metadata key under which `@Tool` stores a class's {@link ToolMetadata}. */
export const TOOL_METADATA = 'agent-ledger:tool' as const;

/**
 * The registry-wide symbol (`Symbol.for`) under which `@Tool` also keeps a
 * class's metadata, as a static property: a class decorated by another copy
 * of this package (a plugin with its own `node_modules`) is still recognised,
 * whether or not the two copies share reflect-metadata's storage.
 */
export const TOOL_METADATA_PROPERTY: unique symbol = Symbol.for('agent-ledger:tool');

/** A class whose instances are tools. */
export type ToolClass = abstract new (...args: never[]) => AgentTool<never>;

/**
 * Declares a class as a tool and makes it a Nest provider (`@Injectable()`).
 * `ToolsModule` registers every provider so decorated, from any module.
 *
 * The metadata is checked when the class is defined: a bad name, an empty
 * description, a schema that is not `type: 'object'` or not valid JSON
 * Schema, a non-positive deadline or an unknown data class throw an
 * {@link InvalidFieldError} naming the field (`@Tool(files.read).parameters`).
 *
 * There is no `effect` field, and an `effect` key given anyway is refused:
 * the effect is declared by the code, by implementing `DeclaresToolEffect`
 * (from `@agent-ledger/domain`). A tool that does not is `READ_ONLY`.
 *
 * @example
 * ```ts
 * @Tool({
 *   name: 'tickets.close',
 *   description: 'Closes a ticket.',
 *   parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
 * })
 * export class CloseTicketTool implements AgentTool<{ id: string }>, DeclaresToolEffect {
 *   getEffect() { return ToolEffect.IDEMPOTENT_WRITE; }
 *   async execute(args: { id: string }, context: ToolContext) { ... }
 * }
 * ```
 */
export function Tool(metadata: ToolMetadata): (target: ToolClass) => void {
  const checked = validateToolMetadata(metadata);
  const injectable = Injectable();
  return (target: ToolClass) => {
    const prototype = (target as { prototype?: { execute?: unknown } }).prototype;
    if (typeof prototype?.execute !== 'function') {
      throw new InvalidFieldError(`${toolLabel(checked)}.execute`, 'must be a method: @Tool decorates a class implementing AgentTool');
    }
    Reflect.defineMetadata(TOOL_METADATA, checked, target);
    Object.defineProperty(target, TOOL_METADATA_PROPERTY, { value: checked, enumerable: false, configurable: true, writable: false });
    injectable(target as unknown as abstract new (...args: never[]) => unknown);
  };
}

/**
 * The metadata `@Tool` declared on `target` (a class), or on the class of
 * `target` (an instance); `undefined` when there is none. A class decorated
 * by another copy of this package is recognised too (through
 * {@link TOOL_METADATA_PROPERTY}); the registry checks the metadata again.
 */
export function getToolMetadata(target: unknown): ToolMetadata | undefined {
  if (typeof target === 'function') {
    const reflected = Reflect.getMetadata(TOOL_METADATA, target) as ToolMetadata | undefined;
    return reflected ?? ((target as unknown as Record<symbol, unknown>)[TOOL_METADATA_PROPERTY] as ToolMetadata | undefined);
  }
  if (typeof target === 'object' && target !== null) {
    return getToolMetadata((target as { constructor?: unknown }).constructor);
  }
  return undefined;
}
