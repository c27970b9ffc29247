import { InvalidFieldError } from '../errors/invalid-field.error';
import { declaresToolEffect } from './tool-effect-declaration';
import { isToolEffect, ToolEffect } from './tool-effect';

/** The least a tool must have for its effect to be resolved: a unique name. */
export interface NamedTool {
  readonly name: string;
}

/**
 * The effect a tool instance declares in code: `READ_ONLY` when it declares
 * nothing. A declaration that is not one of the three effects is refused.
 *
 * @throws {@link InvalidFieldError} when `getEffect()` returns something else.
 */
export function effectOf(tool: object): ToolEffect {
  if (!declaresToolEffect(tool)) {
    return ToolEffect.READ_ONLY;
  }
  const declared: unknown = tool.getEffect();
  if (!isToolEffect(declared)) {
    throw new InvalidFieldError('getEffect()', `must return one of READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE (got ${String(declared)})`);
  }
  return declared;
}

/**
 * Resolves tool effects, from tool instances only: there is deliberately no
 * parameter, option or setter through which an effect could be given from
 * configuration. Each tool's declaration is read once, when it is registered.
 *
 * Resolution by name (for a step read back from the store) is stricter than
 * by instance: an unknown name (a removed or renamed tool) resolves to
 * `NON_IDEMPOTENT_WRITE`, the class that is audit-critical and never retried.
 */
export class ToolEffectResolver {
  private readonly effects: ReadonlyMap<string, ToolEffect>;

  /**
   * @throws {@link InvalidFieldError} when two tools share a name (one could
   *   otherwise shadow the other's effect) or a declaration is invalid.
   */
  constructor(tools: Iterable<NamedTool>) {
    const effects = new Map<string, ToolEffect>();
    for (const tool of tools) {
      if (typeof tool.name !== 'string' || tool.name.length === 0) {
        throw new InvalidFieldError('tool.name', 'must be a non-empty string');
      }
      if (effects.has(tool.name)) {
        throw new InvalidFieldError('tool.name', `must be unique: "${tool.name}" is registered twice`);
      }
      effects.set(tool.name, effectOf(tool));
    }
    this.effects = effects;
  }

  /** The declared effect of the tool registered under `name`; `NON_IDEMPOTENT_WRITE` when none is. */
  effectFor(name: string): ToolEffect {
    return this.effects.get(name) ?? ToolEffect.NON_IDEMPOTENT_WRITE;
  }

  /** Whether a tool is registered under `name`. */
  has(name: string): boolean {
    return this.effects.has(name);
  }
}
