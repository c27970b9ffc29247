import type { ToolEffect } from './tool-effect';

/**
 * The opt-in interface through which a tool declares its side effect. A tool
 * that does not implement it is `READ_ONLY`: every write must declare itself.
 *
 * @example
 * class AppendToFileTool implements DeclaresToolEffect {
 *   getEffect() { return ToolEffect.NON_IDEMPOTENT_WRITE; }
 * }
 */
export interface DeclaresToolEffect {
  /** The tool's effect. A property of the code: it must return the same value every time. */
  getEffect(): ToolEffect;
}

/** Whether `tool` implements {@link DeclaresToolEffect}. */
export function declaresToolEffect(tool: unknown): tool is DeclaresToolEffect {
  return (
    typeof tool === 'object' &&
    tool !== null &&
    typeof (tool as Partial<DeclaresToolEffect>).getEffect === 'function'
  );
}
